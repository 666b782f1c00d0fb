import type { Db } from '../db.ts'
import type { Statement } from './params.ts'

export type LocalSettings = Record<string, string | number>

/** Sets `settings` for the rest of the transaction (as SET LOCAL does), all in one statement. */
export async function setLocal(tx: Db, settings: LocalSettings): Promise<void> {
	const entries = Object.entries(settings)
	if (entries.length === 0) return
	await tx.query(
		`SELECT ${entries.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ')}`,
		entries.flatMap(([name, value]) => [name, String(value)]),
	)
}

/**
 * One statement with `settings` set for it alone: in a transaction, the settings sent together with the statement
 * (both drivers run a transaction's statements in the order they are sent), so they cost no round trip of their own.
 */
export function queryWith<Row>(db: Db, settings: LocalSettings, statement: Statement) {
	return db.transaction(async (tx) => {
		const [, rows] = await Promise.all([setLocal(tx, settings), tx.query<Row>(statement.text, statement.params)])
		return rows
	})
}
