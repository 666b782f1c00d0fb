import { expect, it } from 'bun:test'
import type { Db } from '../../plugins/storage-postgres/db.ts'
import { storesOver } from '../../plugins/storage-postgres/queries/index.ts'
import { newDocument, TEST_VECTOR_SPACE, textChunk } from '../../testkit/contract/storage.contract.ts'
import { describeEachStorageDriver } from '../../testkit/storage-drivers.ts'

/** The columns ANALYZE skips: vectors and texts, which no query filters by value. */
const SKIPPED = ['chunks.embedding', 'chunks.content', 'memories.embedding', 'memories.memory', 'documents.content']

function statisticsSuite(store: () => Db) {
	it('keeps no statistics of vectors and texts, and keeps those of the columns searches filter by', async () => {
		const db = store()
		const stores = storesOver(() => db)
		const scope = { orgId: (await stores.orgs.create('org')).id }
		const { document } = await stores.documents.upsert(scope, newDocument({ content: 'a river runs by the station' }))
		await stores.chunks.stage(
			document.id,
			['a river runs by', 'the station at night'].map((content, n) => textChunk({ content }, n)),
		)
		await stores.chunks.publish(document.id)
		await db.exec('ANALYZE documents; ANALYZE chunks; ANALYZE memories')

		const targets = await db.query<{ col: string; target: number | null }>(
			`SELECT c.relname || '.' || a.attname AS col, a.attstattarget::int AS target FROM pg_attribute a
			JOIN pg_class c ON c.oid = a.attrelid
			WHERE c.relname IN ('chunks', 'memories', 'documents') AND a.attnum > 0 AND NOT a.attisdropped`,
		)
		const skipped = targets.filter((row) => row.target === 0).map((row) => row.col)
		expect(skipped.sort()).toEqual([...SKIPPED].sort())

		// No memory is written here, so ANALYZE leaves no statistics of the memories to look at.
		const analyzed = await db.query<{ col: string }>(
			"SELECT tablename || '.' || attname AS col FROM pg_stats WHERE tablename IN ('chunks', 'documents')",
		)
		const columns = analyzed.map((row) => row.col)
		expect(columns).toContain('chunks.container_tag')
		expect(columns).toContain('chunks.tsv')
		expect(columns).toContain('documents.container_tag')
		for (const column of SKIPPED.filter((name) => !name.startsWith('memories.'))) expect(columns).not.toContain(column)
	}, 60_000)
}

describeEachStorageDriver('planner statistics columns', TEST_VECTOR_SPACE, statisticsSuite)
