import { afterAll, beforeAll, expect, it } from 'bun:test'
import type { Driver } from '../plugins/storage-postgres/db.ts'
import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { openPostgres } from '../plugins/storage-postgres/drivers/postgres.ts'
import { memoryPlans, migrate, storesOver } from '../plugins/storage-postgres/queries/index.ts'
import { newDocument, TEST_VECTOR_SPACE, vec } from './contract/storage.contract.ts'
import { describeEachDriver } from './helpers/drivers.ts'
import { createTestDatabase } from './helpers/postgres.ts'

describeEachDriver('memory queries use their indexes', (kind) => {
	let driver: Driver
	let drop = async () => {}
	beforeAll(async () => {
		if (kind === 'postgres') {
			const database = await createTestDatabase('memory_plans')
			drop = database.drop
			driver = openPostgres(database.url)
		} else driver = await openPglite('memory://')
		await migrate(driver.db, TEST_VECTOR_SPACE)
	})
	afterAll(async () => {
		await driver?.close()
		await drop()
	})

	it('searches memories with the HNSW and GIN indexes, and finds facts and texts by their indexes', async () => {
		const stores = storesOver(() => driver.db)
		const scope = { orgId: (await stores.orgs.create('planned')).id }
		const { document } = await stores.documents.upsert(scope, newDocument({ containerTag: 'c1' }))
		const create = Array.from({ length: 500 }, (_, n) => {
			const id = `planned${String(n).padStart(15, '0')}`
			return {
				id,
				memory: n === 250 ? 'a rare zanzibar memory' : `common memory number ${n % 10}`,
				contentKey: `key ${n}`,
				embedding: vec(1, n % 7, 3),
				version: 1,
				parentMemoryId: null,
				rootId: id,
				isLatest: true,
				isStatic: false,
				isInference: false,
				subject: `subject ${n % 50}`,
				attribute: 'residence',
				value: `value ${n}`,
				metadata: null,
				eventDates: [],
				buckets: [],
				forgetAfter: null,
				forgetReason: null,
				source: { chunkPositions: [], turnIndexes: [] },
			}
		})
		await stores.memories.form(scope, 'c1', null, { vectors: [], neighbours: 0, contentKeys: [], facts: [] }, () => ({
			documentId: document.id,
			create,
			attach: [],
			supersede: [],
			links: [],
			replaceDocumentSources: false,
		}))
		await driver.db.exec('VACUUM ANALYZE')
		const plans = await memoryPlans(
			driver.db,
			scope,
			{
				containerTags: null,
				vector: vec(1),
				terms: ['zanzibar'],
				includeForgotten: false,
				includeHistory: false,
				limit: 10,
			},
			'c1',
			{ enable_seqscan: 'off' },
		)
		expect(plans.vector).toContain('memories_embedding_idx')
		expect(plans.text).toContain('memories_tsv_idx')
		expect(plans.facts).toContain('memories_fact_idx')
		expect(plans.contentKeys).toContain('memories_content_key_idx')
	})
})
