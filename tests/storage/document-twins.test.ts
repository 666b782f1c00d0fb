import { expect, it } from 'bun:test'
import type { Db } from '../../plugins/storage-postgres/db.ts'
import { recentTwinStatement } from '../../plugins/storage-postgres/queries/document-upsert.ts'
import { storesOver } from '../../plugins/storage-postgres/queries/index.ts'
import { newDocument, TEST_VECTOR_SPACE } from '../../testkit/contract/storage.contract.ts'
import { describeEachStorageDriver } from '../../testkit/storage-drivers.ts'

/** Documents the container took within the retry window, each of other content. */
const RECENT_DOCUMENTS = 3_000

function twinSuite(store: () => Db) {
	it('finds an add’s retry reading only the documents of the same content', async () => {
		const db = store()
		const stores = storesOver(() => db)
		const scope = { orgId: (await stores.orgs.create('org')).id }
		await db.query(
			`INSERT INTO documents (id, org_id, container_tag, content, content_hash, type, task_type, status, dreaming,
				dreaming_status)
			SELECT 'bulk-' || n, $1, 'busy', 'text ' || n, 'hash-' || n, 'text', 'memory', 'done', 'instant', 'done'
			FROM generate_series(1, ${RECENT_DOCUMENTS}) AS n`,
			[scope.orgId],
		)
		const add = newDocument({ containerTag: 'busy', content: 'the retried add', contentHash: 'retried' })
		const first = await stores.documents.upsert(scope, { ...add, retryWindowSeconds: 600 })
		await db.exec('ANALYZE documents')

		const retry = await stores.documents.upsert(scope, { ...add, retryWindowSeconds: 600 })
		expect(retry.created).toBe(false)
		expect(retry.document.id).toBe(first.document.id)

		const statement = recentTwinStatement(scope, add, 600)
		const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE) ${statement.text}`, statement.params))
			.map((row) => row['QUERY PLAN'])
			.join('\n')
		expect(plan).not.toContain('Seq Scan')
		const removed = [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].map((match) => Number(match[1]))
		expect(Math.max(0, ...removed)).toBeLessThan(10)
	}, 60_000)
}

describeEachStorageDriver('document twins', TEST_VECTOR_SPACE, twinSuite)
