import type { ChunkSearchQuery, Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import type { Statement } from './params.ts'
import { textSearchStatement, vectorScanSettings, vectorSearchStatement } from './search.ts'

/**
 * The query plans (EXPLAIN) of the vector and the full-text search for a query, to check which indexes they use.
 * `settings` are SET LOCAL for the explained transaction only, e.g. `{ enable_seqscan: 'off' }`; with `analyze` the
 * searches run and the plans carry actual row counts and times (EXPLAIN ANALYZE).
 */
export async function searchPlans(
	db: Db,
	scope: Scope,
	query: ChunkSearchQuery,
	settings: Record<string, string> = {},
	options: { analyze?: boolean } = {},
): Promise<{ vector: string; text: string | null }> {
	const explain = (statement: Statement) =>
		db.transaction(async (tx) => {
			await tx.query(vectorScanSettings())
			for (const [name, value] of Object.entries(settings)) {
				await tx.query('SELECT set_config($1, $2, true)', [name, value])
			}
			const rows = await tx.query<{ 'QUERY PLAN': string }>(
				`EXPLAIN ${options.analyze ? '(ANALYZE) ' : ''}${statement.text}`,
				statement.params,
			)
			return rows.map((row) => row['QUERY PLAN']).join('\n')
		})
	const text = textSearchStatement(scope, query)
	return { vector: await explain(vectorSearchStatement(scope, query)), text: text ? await explain(text) : null }
}
