import { afterAll, beforeAll, expect, it } from 'bun:test'
import type { NewMemory, Scope } from '../../core/index.ts'
import type { Driver } from '../../plugins/storage-postgres/db.ts'
import { openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import { openPostgres } from '../../plugins/storage-postgres/drivers/postgres.ts'
import { formationReadPlan, memoryPlans, migrate, storesOver } from '../../plugins/storage-postgres/queries/index.ts'
import { PLAIN_RANK_ROWS } from '../../plugins/storage-postgres/queries/text-candidates.ts'
import { newDocument, newMemory, TEST_VECTOR_SPACE, vec } from '../../testkit/contract/storage.contract.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { createTestDatabase } from '../../testkit/postgres.ts'

/** Writes memories sourced by one document of the container, with no formation context. */
async function writeMemories(
	stores: ReturnType<typeof storesOver>,
	scope: Scope,
	containerTag: string,
	create: NewMemory[],
): Promise<void> {
	const { document } = await stores.documents.upsert(scope, newDocument({ containerTag }))
	const noContext = { vectors: [], neighbours: 0, contentKeys: [], facts: [] }
	await stores.memories.form(scope, containerTag, null, noContext, () => ({
		documentId: document.id,
		create,
		attach: [],
		supersede: [],
		links: [],
		replaceDocumentSources: false,
	}))
}

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
		await writeMemories(
			stores,
			scope,
			'c1',
			Array.from({ length: 500 }, (_, n) =>
				newMemory({
					id: `planned${String(n).padStart(15, '0')}`,
					memory: n === 250 ? 'a rare zanzibar memory' : `common memory number ${n % 10}`,
					contentKey: `key ${n}`,
					embedding: vec(1, n % 7, 3),
					subject: `subject ${n % 50}`,
					attribute: 'residence',
					value: `value ${n}`,
				}),
			),
		)
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

	it('searches no vector index for the neighbours of a formation in an empty container', async () => {
		// Filtered to a container that holds nothing, an index scan would walk the organization's whole graph.
		const stores = storesOver(() => driver.db)
		const scope = { orgId: (await stores.orgs.create('probed')).id }
		await writeMemories(
			stores,
			scope,
			'c1',
			Array.from({ length: 20 }, (_, n) =>
				newMemory({ id: `probed${String(n).padStart(16, '0')}`, memory: `memory ${n}`, embedding: vec(1, n, 2) }),
			),
		)
		const probe = { vectors: [vec(1), vec(0, 1)], neighbours: 8, contentKeys: ['memory 1'], facts: [] }
		const empty = await formationReadPlan(driver.db, scope, 'empty', probe, 'index')
		expect(empty).toMatch(/Index Scan using memories_embedding_idx[^\n]*\(never executed\)/)
		const filled = await formationReadPlan(driver.db, scope, 'c1', probe, 'index')
		expect(filled).toContain('Index Scan using memories_embedding_idx')
		expect(filled).not.toMatch(/Index Scan using memories_embedding_idx[^\n]*\(never executed\)/)
	})

	it('finds the neighbours of a container exactly up to a bound that grows with the vector index', async () => {
		// An index probe filtered to one container walks past the other containers' memories, so the larger the index,
		// the larger the container that is cheaper to search exactly: sqrt(364 × memories), at least 1,000. The bound is
		// 1,000 until the table holds 2,747 memories; this suite's earlier tests leave 520.
		const stores = storesOver(() => driver.db)
		const scope = { orgId: (await stores.orgs.create('bounded')).id }
		const memories = (prefix: string, count: number) =>
			Array.from({ length: count }, (_, n) =>
				newMemory({
					id: `${prefix}${String(n).padStart(16, '0')}`,
					memory: `${prefix} ${n}`,
					embedding: vec(1, n % 13, 2),
				}),
			)
		await writeMemories(stores, scope, 'c1', memories('bounded', 1_200))
		const probe = { vectors: [vec(1, 3, 2)], neighbours: 8, contentKeys: [], facts: [] }
		const sorted = /Sort Key: \(\(pool[^\n]*\n[^\n]*Sort Method/
		await driver.db.exec('ANALYZE memories')
		expect(await formationReadPlan(driver.db, scope, 'c1', probe, 'exact')).not.toMatch(sorted)
		await writeMemories(stores, scope, 'others', memories('others', 4_000))
		await driver.db.exec('ANALYZE memories')
		expect(await formationReadPlan(driver.db, scope, 'c1', probe, 'exact')).toMatch(sorted)
	})

	it('ranks a bounded set of memories when most of a container holds the words', async () => {
		const stores = storesOver(() => driver.db)
		const scope = { orgId: (await stores.orgs.create('tiered')).id }
		const id = (n: number) => `tiered${String(n).padStart(16, '0')}`
		const count = PLAIN_RANK_ROWS + 100
		await writeMemories(
			stores,
			scope,
			'c1',
			Array.from({ length: count }, (_, n) =>
				newMemory({ id: id(n), memory: n === count - 50 ? 'common zanzibar' : `common memory number ${n % 10}` }),
			),
		)
		await driver.db.exec('VACUUM ANALYZE memories')
		const query = {
			containerTags: ['c1'],
			vector: vec(1),
			terms: ['common', 'zanzibar'],
			includeForgotten: false,
			includeHistory: true,
			limit: 10,
		}
		// The memory holding both words is stored past the plain scan's cut, on the first search and after.
		for (const _search of ['first', 'remembered']) {
			const hits = await stores.memories.searchByText(scope, query)
			expect(hits).toHaveLength(10)
			expect(hits[0]!.memoryId).toBe(id(count - 50))
		}
		const plans = await memoryPlans(driver.db, scope, query, 'c1', { enable_seqscan: 'off' }, { analyze: true })
		const heapRows = [...plans.text!.matchAll(/Bitmap Heap Scan on memories .*actual time=\S+ rows=(\d+)/g)].map(
			(match) => Number(match[1]),
		)
		// Each tier stops at 50 rows (the least cut), where ranking every match would read all 600.
		expect(heapRows.length).toBeGreaterThan(1)
		expect(Math.max(...heapRows)).toBeLessThanOrEqual(50)
		expect(heapRows.reduce((sum, rows) => sum + rows, 0)).toBeLessThan(250)
	})
})
