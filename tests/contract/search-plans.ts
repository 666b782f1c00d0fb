import type { Driver } from '../../plugins/storage-postgres/db.ts'
import { searchPlans, storesOver } from '../../plugins/storage-postgres/queries/index.ts'
import { newDocument, vec } from './storage.contract.ts'

/** Plans of an org-wide search for a rare word, over enough rows (and fresh statistics) for the planner to prefer the indexes. */
export async function seededSearchPlans(driver: Driver) {
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
