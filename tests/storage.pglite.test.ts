import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Driver } from '../plugins/storage-postgres/db.ts'
import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { storagePostgres } from '../plugins/storage-postgres/index.ts'
import { migrate, searchPlans, storesOver } from '../plugins/storage-postgres/queries/index.ts'
import { newDocument, storageContract, TEST_VECTOR_SPACE, vec } from './contract/storage.contract.ts'

storageContract('storage-postgres on embedded PGlite', async () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'storage-pglite-'))
	return {
		storage: storagePostgres({ dataDir }),
		reopen: async () => storagePostgres({ dataDir }),
		cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
	}
})

describe('storage-postgres on embedded PGlite: query plans', () => {
	let driver: Driver
	beforeAll(async () => {
		driver = await openPglite('memory://')
		await migrate(driver.db, TEST_VECTOR_SPACE)
	})
	afterAll(() => driver.close())

	it('searches with the HNSW index and the full-text GIN index', async () => {
		const plans = await seededSearchPlans(driver)
		expect(plans.vector).toContain('Index Scan using chunks_embedding_idx')
		expect(plans.text).toContain('Bitmap Index Scan on chunks_tsv_idx')
	})
})

/** Plans of an org-wide search for a rare word, over enough rows (and fresh statistics) for the planner to prefer the indexes. */
async function seededSearchPlans(driver: Driver) {
	const stores = storesOver(() => driver.db)
	const scope = { orgId: (await stores.orgs.create('planned')).id }
	const { document } = await stores.documents.upsert(scope, newDocument())
	const chunks = Array.from({ length: 500 }, (_, n) => ({
		position: n,
		content: n === 250 ? 'a rare zanzibar chunk' : `common words number ${n % 10}`,
		type: 'text' as const,
		metadata: null,
	}))
	await stores.chunks.stage(document.id, chunks)
	const staged = await stores.chunks.staged(document.id)
	await stores.chunks.setEmbeddings(
		staged.map((chunk) => ({ chunkId: chunk.id, vector: vec(1, chunk.position % 7, 3) })),
	)
	await stores.chunks.publish(document.id)
	await driver.db.exec('VACUUM ANALYZE')
	const query = { containerTags: null, vector: vec(1), terms: ['zanzibar'], limit: 10 }
	return searchPlans(driver.db, scope, query, { enable_seqscan: 'off' })
}
