import type { Db } from '../db.ts'

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
