import { expect, it } from 'bun:test'
import type { Scope } from '../../core/index.ts'
import type { Driver } from '../../plugins/storage-postgres/db.ts'
import { CommonWords } from '../../plugins/storage-postgres/queries/common-words.ts'
import { searchPlans, storesOver } from '../../plugins/storage-postgres/queries/index.ts'
import { PLAIN_RANK_ROWS } from '../../plugins/storage-postgres/queries/text-candidates.ts'
import { newDocument, vec } from './storage.contract.ts'

/**
 * `count` chunks (of common words unless `content` says otherwise) and one of a rare word at `rare`, with fresh
 * statistics, in a new organization.
 */
async function seed(
	driver: Driver,
	count = 500,
	rare = { at: 250, content: 'a rare zanzibar chunk' },
	content = (n: number) => `common words number ${n % 10}`,
) {
	const stores = storesOver(() => driver.db)
	const scope = { orgId: (await stores.orgs.create(`planned-${crypto.randomUUID()}`)).id }
	const { document } = await stores.documents.upsert(scope, newDocument())
	const chunks = Array.from({ length: count }, (_, n) => ({
		position: n,
		content: n === rare.at ? rare.content : content(n),
		type: 'text' as const,
		metadata: null,
		embedding: vec(1, n % 7, 3),
	}))
	await stores.chunks.stage(document.id, chunks)
	await stores.chunks.publish(document.id)
	await driver.db.exec('VACUUM ANALYZE')
	return { stores, scope, document }
}

/** An org-wide search for a rare word, over enough rows (and fresh statistics) for the planner to prefer the indexes. */
async function expectIndexedSearchPlans(driver: Driver) {
	const { scope } = await seed(driver)
	const query = { containerTags: null, vector: vec(1), terms: ['zanzibar'], limit: 10 }
	const plans = await searchPlans(driver.db, scope, query, { enable_seqscan: 'off' })
	expect(plans.vector).toContain('Index Scan using chunks_embedding_idx')
	expect(plans.text).toContain('Bitmap Index Scan on chunks_tsv_idx')
}

/**
 * A search for two words of 499 of the seeded chunks and a rare one, limit 10, ranks a bounded candidate set: a few
 * index-cut tiers, each Bitmap Heap Scan reading at most its cut (EXPLAIN ANALYZE), not every match.
 */
async function expectBoundedCommonWordsSearch(driver: Driver) {
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

/**
 * A scope with more full-text matches than one scan ranks (PLAIN_RANK_ROWS) is searched by the match tiers, on its
 * first search and after: they find the one chunk holding both words, stored past the cut of the scan.
 */
async function expectLargeScopeSearchedByTiers(driver: Driver) {
	const count = PLAIN_RANK_ROWS + 100
	const rare = { at: count - 50, content: 'common zanzibar' }
	const { stores, scope, document } = await seed(driver, count, rare)
	const [both] = (await stores.chunks.list(scope, document.id)).filter((chunk) => chunk.content === rare.content)
	const query = { containerTags: null, vector: vec(1), terms: ['common', 'zanzibar'], limit: 10 }
	for (const _search of ['first', 'remembered']) {
		const hits = await stores.search.chunksByText(scope, query)
		expect(hits).toHaveLength(10)
		expect(hits[0]!.chunkId).toBe(both!.id)
	}
}

/** The scans of chunks by the tiers of a full-text plan (EXPLAIN ANALYZE): rows read, or null for one that never ran. */
function tierScans(plan: string): (number | null)[] {
	return [...plan.matchAll(/ on chunks c_\d+ .*\((?:actual time=\S+ rows=([\d.]+)|never executed)/g)].map((match) =>
		match[1] === undefined ? null : Number(match[1]),
	)
}

/**
 * When the tier of all the words fills its cut, the "at least k of the words" tier after it reads nothing: three words
 * every chunk holds, so the tiers are all three (full), at least two (closed) and each word alone.
 */
async function expectFilledTierClosesTheNext(driver: Driver) {
	const { stores, scope } = await seed(driver, PLAIN_RANK_ROWS + 100)
	const query = { containerTags: null, vector: vec(1), terms: ['common', 'words', 'number'], limit: 10 }
	const hits = await stores.search.chunksByText(scope, query)
	const plans = await searchPlans(driver.db, scope, query, { enable_seqscan: 'off' }, { analyze: true })
	const scans = tierScans(plans.text!)
	expect(hits).toHaveLength(10)
	expect(hits.every((hit) => hit.coverage === 1)).toBe(true)
	expect(scans).toHaveLength(5)
	expect(scans.filter((rows) => rows === null)).toHaveLength(1)
}

/**
 * While the tiers before it fall short of its cut, an "at least k" tier runs: the one chunk holding two common words
 * (stored past the cut of each word's own tier) is found by it, and ranks first.
 */
async function expectShortTierOpensTheNext(driver: Driver) {
	const count = PLAIN_RANK_ROWS + 100
	const rare = { at: count - 50, content: 'alpha beta' }
	const { stores, scope, document } = await seed(driver, count, rare, (n) =>
		n % 2 === 0 ? `alpha filler ${n}` : `beta filler ${n}`,
	)
	const [both] = (await stores.chunks.list(scope, document.id)).filter((chunk) => chunk.content === rare.content)
	const query = { containerTags: null, vector: vec(1), terms: ['alpha', 'beta', 'gamma'], limit: 10 }
	const hits = await stores.search.chunksByText(scope, query)
	expect(hits).toHaveLength(10)
	expect(hits[0]!.chunkId).toBe(both!.id)
}

/**
 * Runs `check` with the chunks table's statistics scaled to `rows` rows (a million: every seeded word counts a million
 * postings), restored by an ANALYZE after.
 */
async function withStatisticsScaledTo(driver: Driver, rows: number, check: () => Promise<void>) {
	await driver.db.exec(`UPDATE pg_class SET reltuples = ${rows} WHERE oid = 'chunks'::regclass`)
	try {
		await check()
	} finally {
		await driver.db.exec('ANALYZE chunks')
	}
}

/**
 * A search of the chunks for `terms`, limit 10: its hits (the store's common words may be unread yet) and the scans of
 * its tiers with the common words read first (EXPLAIN ANALYZE).
 */
async function searchScans(driver: Driver, stores: ReturnType<typeof storesOver>, scope: Scope, terms: string[]) {
	const query = { containerTags: null, vector: vec(1), terms, limit: 10 }
	const hits = await stores.search.chunksByText(scope, query)
	const plans = await searchPlans(driver.db, scope, query, { enable_seqscan: 'off' }, { analyze: true })
	return { hits, scans: tierScans(plans.text!) }
}

/**
 * Once the tiers of several words have found as many rows as they take, the tier of a word the table's statistics
 * count more than 10,000 postings of is left out; a rare word's tier still runs.
 */
async function expectCommonWordTierClosed(driver: Driver) {
	const { stores, scope } = await seed(driver, PLAIN_RANK_ROWS + 100)
	await withStatisticsScaledTo(driver, 1_000_000, async () => {
		const { hits, scans } = await searchScans(driver, stores, scope, ['common', 'words', 'zanzibar'])
		// All three words (none), at least two with "zanzibar" (none), at least two of the common ones (50 rows, its
		// cut), then "common" and "words" (closed) and "zanzibar" (1).
		expect(scans).toEqual([0, 0, 50, null, null, 1])
		expect(hits).toHaveLength(10)
	})
}

/**
 * In an "at least k of the words" tier, the groups of common words only run after the groups holding a rarer word,
 * and only while those fall short: "common & words" (in most chunks) is never read when the pairs with "quokka" (a
 * tenth of the seeded chunks, under 10,000 postings at 90,000 rows) fill the cut.
 */
async function expectCommonPairsAfterRarerPairs(driver: Driver) {
	const { stores, scope } = await seed(driver, PLAIN_RANK_ROWS + 100, undefined, (n) =>
		n % 10 === 0 ? `quokka common ${n}` : `common words number ${n % 10}`,
	)
	await withStatisticsScaledTo(driver, 90_000, async () => {
		const { hits, scans } = await searchScans(driver, stores, scope, ['common', 'words', 'quokka'])
		// All three words (none), the pairs with "quokka" (60 rows, cut at 50), the pair of common words (closed),
		// then "common" and "words" (closed) and "quokka" (50).
		expect(scans).toEqual([0, 50, null, null, null, 50])
		expect(hits).toHaveLength(10)
	})
}

/**
 * The match tiers read their matches through the index, wherever the table holds them: with 3,000 rows of another
 * container stored first and "quokka" in a twentieth of the 12,000 rows searched, a tier planned for its first 50 rows
 * took the table in its stored order and read the other container's rows before any of its own.
 */
async function expectRarerWordTierReadByIndex(driver: Driver) {
	const stores = storesOver(() => driver.db)
	const scope = { orgId: (await stores.orgs.create(`ordered-${crypto.randomUUID()}`)).id }
	const { document } = await stores.documents.upsert(scope, newDocument())
	const insert = (container: string, from: number, to: number, content: string) =>
		driver.db.query(
			`INSERT INTO chunks (id, document_id, org_id, container_tag, position, content, type)
			SELECT $1 || '-' || n, $2, $3, $4, n, ${content}, 'text' FROM generate_series($5::int, $6::int) AS n`,
			[crypto.randomUUID(), document.id, scope.orgId, container, from, to],
		)
	await insert('elsewhere', 0, 2_999, `'filler text of another container, row ' || n`)
	await insert(
		'searched',
		3_000,
		14_999,
		`CASE WHEN n % 20 = 0 THEN 'quokka common words ' ELSE 'common words number ' END || (n % 10)`,
	)
	await driver.db.exec('ANALYZE chunks')
	const query = { containerTags: ['searched'], vector: vec(1), terms: ['quokka', 'common'], limit: 10 }
	const plans = await searchPlans(driver.db, scope, query, {}, { analyze: true })
	const tableScans = [...plans.text!.matchAll(/Seq Scan on chunks \S+ .*actual time=/g)]
	expect(tableScans).toEqual([])
	expect(await stores.search.chunksByText(scope, query)).toHaveLength(10)
}

/** A reader of the common words finds none before the statistics are read, then the table's, and not a rare word. */
async function expectCommonWordsReadInBackground(driver: Driver) {
	await seed(driver, PLAIN_RANK_ROWS + 100)
	await withStatisticsScaledTo(driver, 1_000_000, async () => {
		const common = new CommonWords(() => driver.db, 'chunks')
		expect(await common.among(['Common', 'words', 'zanzibar'])).toEqual(new Set())
		await common.settled()
		// "words" is the lexeme "word": a word is matched by PostgreSQL's stemmer.
		expect(await common.among(['Common', 'words', 'zanzibar'])).toEqual(new Set(['common', 'words']))
	})
}

/** The query-plan tests of the search statements, for a driver (read inside each test) on a migrated database. */
export function searchPlansContract(driver: () => Driver): void {
	const cases: [string, (driver: Driver) => Promise<void>][] = [
		['searches with the HNSW index and the full-text GIN index', expectIndexedSearchPlans],
		['reads a bounded number of rows for words that most chunks hold', expectBoundedCommonWordsSearch],
		['searches a scope with more matches than one scan ranks by the match tiers', expectLargeScopeSearchedByTiers],
		['skips an "at least k of the words" tier once the tiers before it filled its cut', expectFilledTierClosesTheNext],
		['runs an "at least k of the words" tier while the tiers before it fall short', expectShortTierOpensTheNext],
		[
			'skips the tier of a word the statistics count as common once the tiers of several words filled',
			expectCommonWordTierClosed,
		],
		[
			'runs the pairs of common words of a tier only while the pairs holding a rarer word fall short',
			expectCommonPairsAfterRarerPairs,
		],
		['reads the match tiers through the index, not the table in its stored order', expectRarerWordTierReadByIndex],
		['reads which query words are common from the statistics in the background', expectCommonWordsReadInBackground],
	]
	for (const [behaviour, check] of cases) it(behaviour, () => check(driver()))
}
