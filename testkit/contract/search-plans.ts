import { expect } from 'bun:test'
import type { Driver } from '../../plugins/storage-postgres/db.ts'
import { searchPlans, storesOver } from '../../plugins/storage-postgres/queries/index.ts'
import { newDocument, vec } from './storage.contract.ts'

/** 500 chunks of common words and one of a rare word, with fresh statistics, in a new organization. */
async function seed(driver: Driver) {
	const stores = storesOver(() => driver.db)
	const scope = { orgId: (await stores.orgs.create(`planned-${crypto.randomUUID()}`)).id }
	const { document } = await stores.documents.upsert(scope, newDocument())
	const chunks = Array.from({ length: 500 }, (_, n) => ({
		position: n,
		content: n === 250 ? 'a rare zanzibar chunk' : `common words number ${n % 10}`,
		type: 'text' as const,
		metadata: null,
		embedding: vec(1, n % 7, 3),
	}))
	await stores.chunks.stage(document.id, chunks)
	await stores.chunks.publish(document.id)
	await driver.db.exec('VACUUM ANALYZE')
	return { stores, scope }
}

/** Plans of an org-wide search for a rare word, over enough rows (and fresh statistics) for the planner to prefer the indexes. */
export async function seededSearchPlans(driver: Driver) {
	const { scope } = await seed(driver)
	const query = { containerTags: null, vector: vec(1), terms: ['zanzibar'], limit: 10 }
	return searchPlans(driver.db, scope, query, { enable_seqscan: 'off' })
}

/**
 * A full-text search for two words of 499 of the seeded chunks and a rare one, limit 10: the hits, and how many rows
 * each Bitmap Heap Scan of the search read from the table (EXPLAIN ANALYZE).
 */
/** A search for words most seeded chunks hold ranks a bounded candidate set: a few index-cut tiers, not every match. */
export async function expectBoundedCommonWordsSearch(driver: Driver) {
	const { stores, scope } = await seed(driver)
	const query = { containerTags: null, vector: vec(1), terms: ['common', 'words', 'zanzibar'], limit: 10 }
	const hits = await stores.search.chunksByText(scope, query)
	const plans = await searchPlans(driver.db, scope, query, { enable_seqscan: 'off' }, { analyze: true })
	const heapRows = [...plans.text!.matchAll(/Bitmap Heap Scan on chunks .*actual time=\S+ rows=(\d+)/g)].map((match) =>
		Number(match[1]),
	)
	expect(hits).toHaveLength(10)
	// Each tier of the candidate set stops at 50 rows (the least cut), where one OR query would read all 500.
	expect(heapRows.length).toBeGreaterThan(1)
	expect(Math.max(...heapRows)).toBeLessThanOrEqual(50)
	expect(heapRows.reduce((sum, rows) => sum + rows, 0)).toBeLessThan(250)
}
