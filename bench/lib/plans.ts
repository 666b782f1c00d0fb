import type { Scope } from '../../core/index.ts'
import { embeddedDatabaseDir } from '../../core/index.ts'
import { queryTerms } from '../../core/search/terms.ts'
import { openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import { openPostgres } from '../../plugins/storage-postgres/drivers/postgres.ts'
import { searchPlans } from '../../plugins/storage-postgres/queries/index.ts'
import type { BenchStore } from './store.ts'

/** Which access path a plan takes, in a few words: the index names, or a sequential scan. */
function accessPath(plan: string): string {
	const indexes = [
		...plan.matchAll(/(?:Index Scan|Index Only Scan|Bitmap Index Scan) (?:Backward )?(?:using )?(?:on )?(\w+)/g),
	].map((match) => match[1])
	const paths = [...new Set(indexes)]
	if (/Seq Scan on chunks/.test(plan)) paths.push('SEQ SCAN chunks')
	return paths.join(' + ') || 'no index'
}

/**
 * The access paths the vector and the full-text chunk search take for one query in one container, from EXPLAIN on
 * the store (the server must not be running on an embedded store meanwhile).
 */
export async function searchAccessPaths(
	store: BenchStore,
	scope: Scope,
	containerTag: string,
	q: string,
	vector: Float32Array,
): Promise<{ vector: string; text: string }> {
	const driver = store.databaseUrl
		? openPostgres(store.databaseUrl)
		: await openPglite(embeddedDatabaseDir(store.dataDir))
	try {
		const plans = await searchPlans(driver.db, scope, {
			containerTags: [containerTag],
			vector,
			terms: queryTerms(q),
			limit: 100,
		})
		return { vector: accessPath(plans.vector), text: plans.text ? accessPath(plans.text) : 'no words' }
	} finally {
		await driver.close()
	}
}

/**
 * The container-filtered vector search of chunks, run under EXPLAIN (ANALYZE, BUFFERS) on a PostgreSQL store: the
 * plan text, whether it went through the HNSW index, and the rows the index handed over that the container filter
 * removed (more rows than `hnsw.ef_search` means pgvector's iterative scan went on past the first candidates).
 */
export async function analyzedVectorPlan(
	store: BenchStore,
	scope: Scope,
	containerTag: string,
	vector: Float32Array,
): Promise<{
	plan: string
	index: boolean
	removedByFilter: number
	sharedHit: number
	sharedRead: number
	ms: number
}> {
	const driver = openPostgres(store.databaseUrl!)
	try {
		const { vector: plan } = await searchPlans(
			driver.db,
			scope,
			{ containerTags: [containerTag], vector, terms: [], limit: 100 },
			{},
			{ analyze: true, buffers: true },
		)
		const sum = (pattern: RegExp) => [...plan.matchAll(pattern)].reduce((total, match) => total + Number(match[1]), 0)
		return {
			plan,
			index: /chunks_embedding_idx/.test(plan),
			removedByFilter: sum(/Rows Removed by Filter: (\d+)/g),
			sharedHit: Number(/Buffers: shared hit=(\d+)/.exec(plan)?.[1] ?? 0),
			sharedRead: Number(/read=(\d+)/.exec(plan)?.[1] ?? 0),
			ms: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? Number.NaN),
		}
	} finally {
		await driver.close()
	}
}
