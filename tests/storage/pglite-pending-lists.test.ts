import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GIN_PENDING_LIST_LIMIT, openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { context, newDocument, textChunk } from '../../testkit/contract/storage.contract.ts'

/**
 * The pages a GIN index of the store holds in its pending list, read by emptying the list in a session of its own
 * (gin_clean_pending_list answers how many it moved into the index).
 */
async function pendingPages(dataDir: string, index: string): Promise<number> {
	const driver = await openPglite(dataDir)
	try {
		const [row] = await driver.db.query<{ pages: number }>(
			`SELECT gin_clean_pending_list('${index}'::regclass)::int AS pages`,
		)
		return row!.pages
	} finally {
		await driver.close()
	}
}

/**
 * PGlite runs no autovacuum, the only thing besides VACUUM that moves a GIN index's pending entries into the index
 * (ANALYZE does not): every full-text search read lists of up to 4MB.
 */
describe('GIN pending lists of the embedded store', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'pglite-pending-'))
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

	it('keeps them small in its session', async () => {
		const driver = await openPglite('memory://')
		try {
			const [row] = await driver.db.query<{ gin_pending_list_limit: string }>('SHOW gin_pending_list_limit')
			expect(row!.gin_pending_list_limit).toBe(GIN_PENDING_LIST_LIMIT)
			expect(GIN_PENDING_LIST_LIMIT).not.toBe('4MB')
		} finally {
			await driver.close()
		}
	})

	it('empties them when it refreshes the planner statistics', async () => {
		const storage = storagePostgres({ dataDir })
		await storage.init?.(context())
		try {
			const scope = { orgId: (await storage.orgs.create('pending')).id }
			const { document } = await storage.documents.upsert(scope, newDocument())
			const chunks = Array.from({ length: 60 }, (_, n) => ({ content: `pending chunk words number ${n}` }))
			await storage.chunks.stage(document.id, chunks.map(textChunk))
			// 60 published rows pass the refresh threshold of an empty store (50 + a tenth of the rows).
			await storage.chunks.publish(document.id)
		} finally {
			await storage.close?.()
		}
		expect(await pendingPages(dataDir, 'chunks_tsv_idx')).toBe(0)
	})

	it('empties them at start-up, also when no ANALYZE is due', async () => {
		const raw = await openPglite(dataDir)
		await raw.db.exec("RESET gin_pending_list_limit; UPDATE chunks SET content = content || ' again'")
		await raw.close()
		const storage = storagePostgres({ dataDir })
		await storage.init?.(context())
		await storage.close?.()
		expect(await pendingPages(dataDir, 'chunks_tsv_idx')).toBe(0)
	})
})
