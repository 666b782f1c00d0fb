import postgres from 'postgres'
import { embeddedDatabaseDir } from '../../core/index.ts'
import { openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import type { BenchStore } from './store.ts'

export interface MemorySource {
	documentId: string
	/** 0-based indexes of the transcript turns of that document the memory was formed from. */
	turns: number[]
}

/**
 * The source turns of memories, read from the store's `memory_sources` table after the server stopped: search results
 * do not carry them yet. Used only to score results, never to measure.
 */
export async function readMemorySources(store: BenchStore, ids: string[]): Promise<Map<string, MemorySource[]>> {
	const sources = new Map<string, MemorySource[]>()
	if (ids.length === 0) return sources
	const text = 'SELECT memory_id, document_id, turn_indexes FROM memory_sources WHERE memory_id = ANY($1::text[])'
	let rows: { memory_id: string; document_id: string; turn_indexes: number[] }[]
	if (store.databaseUrl) {
		const sql = postgres(store.databaseUrl, { max: 1, onnotice: () => {} })
		rows = (await sql.unsafe(text, [ids])) as unknown as typeof rows
		await sql.end()
	} else {
		const driver = await openPglite(embeddedDatabaseDir(store.dataDir))
		rows = await driver.db.query(text, [ids])
		await driver.close()
	}
	for (const row of rows) {
		const list = sources.get(row.memory_id) ?? []
		list.push({ documentId: row.document_id, turns: row.turn_indexes })
		sources.set(row.memory_id, list)
	}
	return sources
}
