import type { Db } from '../db.ts'
import type { Statement } from './params.ts'
import { type LocalSettings, queryWith } from './set-local.ts'

/** The plan of `statement` as text: EXPLAIN with `options` (e.g. ANALYZE, BUFFERS), run with `settings`. */
export async function explainWith(
	db: Db,
	settings: LocalSettings,
	statement: Statement,
	options: string[] = [],
): Promise<string> {
	const rows = await queryWith<{ 'QUERY PLAN': string }>(db, settings, {
		text: `EXPLAIN ${options.length > 0 ? `(${options.join(', ')}) ` : ''}${statement.text}`,
		params: statement.params,
	})
	return rows.map((row) => row['QUERY PLAN']).join('\n')
}
