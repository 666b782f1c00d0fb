import type { ChunkSearchQuery, Scope, SearchStore, TextHit, VectorHit } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { PUBLISHED } from './chunks.ts'
import { metadataConditions } from './document-conditions.ts'
import { LargeScopes, scopeKey } from './large-scopes.ts'
import { Params, type Statement, vectorParam } from './params.ts'
import { type LocalSettings, setLocal } from './set-local.ts'

/**
 * With a filter the index alone cannot satisfy (a small container in a large table, a metadata filter), the HNSW scan
 * goes on until it has found `limit` matching rows instead of stopping at `hnsw.ef_search` candidates. Relaxed order
 * is faster; the outer query of the vector search restores the exact order.
 */
export function vectorScanSettings(options: { efSearch?: number } = {}): LocalSettings {
	return {
		'hnsw.iterative_scan': 'relaxed_order',
		...(options.efSearch ? { 'hnsw.ef_search': Math.trunc(options.efSearch) } : {}),
	}
}

/** How many query words reach the full-text query at most. */
const MAX_TERMS = 64

/** The most AND groups an "at least k of the words" tier of the full-text search may take. */
const MAX_COMBINATIONS = 28

/** The fewest rows a tier of the full-text search is cut at, so small limits still rank a fair sample. */
const MIN_TIER_ROWS = 50

/** The most single-word tiers of the full-text search (the last one takes the remaining words together). */
const MAX_WORD_TIERS = 16

/**
 * The most chunks matching any word a scope's full-text search ranks in one scan, exactly; more go to the match
 * tiers, which read up to (tiers x cut) rows: 450 for five content words at the smallest cut.
 */
export const PLAIN_RANK_ROWS = 500

/** PostgreSQL's english stopword list (tsearch_data/english.stop): words the english configuration drops. */
const STOPWORDS = new Set(
	(
		'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself ' +
		'it its itself they them their theirs themselves what which who whom this that these those am is are was were be ' +
		'been being have has had having do does did doing a an the and but if or because as until while of at by for with ' +
		'about against between into through during before after above below to from up down in out on off over under ' +
		'again further then once here there when where why how all any both each few more most other some such no nor ' +
		'not only own same so than too very s t can will just don should now'
	).split(' '),
)

export function searchStore(db: () => Db): SearchStore {
	const largeScopes = new LargeScopes()
	return {
		async chunksByVector(scope, query) {
			if (query.limit <= 0) return []
			const run = (visibility: Visibility) => {
				const statement = vectorSearchStatement(scope, query, visibility)
				return db().transaction(async (tx) => {
					await setLocal(tx, vectorScanSettings())
					return tx.query<{ id: string; document_id: string; similarity: number; published: boolean }>(
						statement.text,
						statement.params,
					)
				})
			}
			const rows = await publishedRows(run)
			return rows.map(
				(row): VectorHit => ({ chunkId: row.id, documentId: row.document_id, similarity: row.similarity }),
			)
		},

		async chunksByText(scope, query) {
			if (query.limit <= 0 || queryWords(query.terms).length === 0) return []
			const toHits = (rows: TextRow[]) =>
				rows.map(
					(row): TextHit => ({ chunkId: row.id, documentId: row.document_id, rank: row.rank, coverage: row.coverage }),
				)
			const key = scopeKey(scope, query)
			if (!largeScopes.has(key)) {
				const ranked = await publishedRows(async (visibility) => {
					const statement = plainTextSearchStatement(scope, query, visibility)!
					const rows = await db().query<TextRow & { matched: number }>(statement.text, statement.params)
					// A scope with more matches than one scan ranks goes to the match tiers: no second run here.
					return (rows[0]?.matched ?? 0) > PLAIN_RANK_ROWS ? null : rows
				})
				if (ranked) return toHits(ranked)
				largeScopes.add(key)
			}
			const rows = await publishedRows((visibility) => {
				const statement = textSearchStatement(scope, query, visibility)!
				return db().query<TextRow>(statement.text, statement.params)
			})
			return toHits(rows)
		},
	}
}

/**
 * Where a search checks that a chunk is of its document's published generation. `answer`: on the rows it answers
 * only, each row saying whether it is; `scan`: on every row it reads (exact, but a lookup of the document per row read,
 * which cost the small-container searches of the embedded store a third of their time).
 */
export type Visibility = 'answer' | 'scan'

/**
 * Runs a search checking publication on its answer only, and again checking every row read when that answer holds a
 * chunk that is staged or replaced (only while a document of the scope is being processed). Either way no
 * unpublished chunk is returned, and an answer of published chunks only is the one the exact search gives.
 */
async function publishedRows<Row extends { published: boolean }, Rows extends Row[] | null>(
	run: (visibility: Visibility) => Promise<Rows>,
): Promise<Rows> {
	const rows = await run('answer')
	return rows === null || rows.every((row) => row.published) ? rows : run('scan')
}

interface TextRow {
	id: string
	document_id: string
	rank: number
	coverage: number
	published: boolean
}

/**
 * Cosine similarity (1 - cosine distance) of chunks in scope, best first, each row with whether it is published (see
 * Visibility: with `scan`, only published chunks are read).
 */
export function vectorSearchStatement(
	scope: Scope,
	query: ChunkSearchQuery,
	visibility: Visibility = 'scan',
): Statement {
	const params = new Params()
	const { from, where } = chunkScope(scope, query, params, visibility)
	const vector = params.add(vectorParam(query.vector))
	const text = `WITH nearest AS MATERIALIZED (
		SELECT c.id, c.document_id, c.generation, c.embedding <=> ${vector}::vector AS distance
		FROM ${from}
		WHERE c.embedding IS NOT NULL AND ${where}
		ORDER BY distance
		LIMIT ${params.add(query.limit)}
	)
	SELECT n.id, n.document_id, 1 - n.distance AS similarity, ${publishedColumn('n')}
	FROM nearest n LEFT JOIN documents owner ON owner.id = n.document_id
	ORDER BY n.distance, n.id`
	return { text, params: params.values }
}

/**
 * Full-text rank of chunks in scope for any of the query's words, best first, each row with whether it is published
 * (see Visibility: with `scan`, only published chunks are read) and how many chunks matched (`matched`, counted up to
 * one past PLAIN_RANK_ROWS); null when no word is left. Every match is ranked, so the answer is exact while `matched`
 * is at most PLAIN_RANK_ROWS; past that it ranked a sample and the match tiers (`textSearchStatement`) take over.
 */
export function plainTextSearchStatement(
	scope: Scope,
	query: ChunkSearchQuery,
	visibility: Visibility = 'scan',
): Statement | null {
	return rankedTextStatement(
		scope,
		query,
		visibility,
		(words) => [{ query: words.join(' | '), rows: PLAIN_RANK_ROWS + 1 }],
		true,
	)
}

/**
 * Full-text rank of chunks in scope for any of the query's words, best first, each row with whether it is published
 * (see Visibility: with `scan`, only published chunks are read); null when no word is left.
 *
 * Ranking every chunk that holds any of the words costs as much as the most common word allows (thousands of rows
 * at 100k chunks), so only a bounded candidate set is ranked: the union of "match tiers" (all the words, at least
 * k of them, each word alone; see `matchTiers`), each cut by the GIN index before any row is ranked, at `limit` rows
 * (half that for a single word; never below MIN_TIER_ROWS). A scope where no single-word tier reaches its cut is
 * ranked exactly as the plain OR query would rank it; beyond that, chunks holding more of the words, and every chunk
 * of a rare word, are still among the candidates, while chunks holding only common words are sampled (in table
 * order). Rows read stay below (number of tiers) x (cut) whatever the words.
 */
export function textSearchStatement(
	scope: Scope,
	query: ChunkSearchQuery,
	visibility: Visibility = 'scan',
): Statement | null {
	return rankedTextStatement(scope, query, visibility, (words) =>
		matchTiers(words).map((tier) => ({
			query: tier.query,
			rows: Math.max(tier.words > 1 ? query.limit : Math.ceil(query.limit / 2), MIN_TIER_ROWS),
		})),
	)
}

/**
 * The full-text statement around a candidate set, the union of `scans` (a tsquery text, cut at `rows` by the index
 * before any row is ranked): the best `limit` candidates by rank with their coverage of the query's lexemes, whether
 * they are published and, with `countMatched`, how many candidates there were (`matched`). Words are reduced to
 * letters and digits, so the tsquery texts can only hold words, parentheses, ' & ' and ' | '.
 */
function rankedTextStatement(
	scope: Scope,
	query: ChunkSearchQuery,
	visibility: Visibility,
	scans: (words: string[]) => { query: string; rows: number }[],
	countMatched = false,
): Statement | null {
	const words = queryWords(query.terms)
	if (words.length === 0) return null
	const params = new Params()
	const { from, where } = chunkScope(scope, query, params, visibility)
	const anyWord = params.add(words.join(' | '))
	const lexemes = params.add(words.join(' '))
	const limit = params.add(query.limit)
	const cuts = new Map<number, string>()
	const cut = (rows: number) => cuts.get(rows) ?? cuts.set(rows, params.add(rows)).get(rows)!
	const candidates = scans(words).map(
		(scan) => `(SELECT c.id, ts_rank_cd(c.tsv, to_tsquery('english', ${anyWord}), 32)::float8 AS rank
			FROM ${from} WHERE c.tsv @@ to_tsquery('english', ${params.add(scan.query)}) AND ${where}
			LIMIT ${cut(scan.rows)})`,
	)
	const matched = countMatched ? ',\n\t\t\t(SELECT count(*) FROM candidates)::int AS matched' : ''
	const text = `WITH candidates AS MATERIALIZED (${candidates.join(' UNION ')})
		SELECT c.id, c.document_id, best.rank,
			${lexemeCoverage('c')},
			${publishedColumn('c')}${matched}
		FROM (SELECT id, rank FROM candidates ORDER BY rank DESC, id LIMIT ${limit}) AS best
		JOIN chunks c ON c.id = best.id
		LEFT JOIN documents owner ON owner.id = c.document_id
		CROSS JOIN (SELECT tsvector_to_array(to_tsvector('english', ${lexemes})) AS lexemes) AS ql
		ORDER BY best.rank DESC, c.id`
	return { text, params: params.values }
}

/**
 * The tsquery texts (with how many of the words each match needs) whose matches, each cut, make the candidate set
 * of a full-text search, from the most to the least demanding: all the words; at least k of them for k from one
 * fewer down to two (as long as that takes at most MAX_COMBINATIONS AND groups); then each word alone (the first
 * MAX_WORD_TIERS - 1; the rest together). Stopwords are left out of the tiers (PostgreSQL's english configuration drops them anyway).
 */
export function matchTiers(words: string[]): { query: string; words: number }[] {
	const content = [...new Set(words.map((word) => word.toLowerCase()))].filter((word) => !STOPWORDS.has(word))
	const tierWords = content.length > 0 ? content : words
	const tiers: { query: string; words: number }[] = []
	if (tierWords.length > 1) tiers.push({ query: tierWords.join(' & '), words: tierWords.length })
	for (let k = tierWords.length - 1; k >= 2; k--) {
		const groups = combinations(tierWords, k, MAX_COMBINATIONS + 1)
		if (groups.length <= MAX_COMBINATIONS) {
			tiers.push({ query: groups.map((group) => `(${group.join(' & ')})`).join(' | '), words: k })
		}
	}
	const alone = tierWords.slice(0, MAX_WORD_TIERS - 1)
	tiers.push(...alone.map((word) => ({ query: word, words: 1 })))
	if (tierWords.length > alone.length) tiers.push({ query: tierWords.slice(alone.length).join(' | '), words: 1 })
	return tiers
}

/** The k-element subsets of `items` in order, stopping once `max` have been made. */
function combinations<T>(items: T[], k: number, max: number): T[][] {
	const result: T[][] = []
	const pick = (start: number, chosen: T[]) => {
		if (result.length >= max) return
		if (chosen.length === k) {
			result.push(chosen)
			return
		}
		for (let i = start; i <= items.length - (k - chosen.length); i++) pick(i + 1, [...chosen, items[i]!])
	}
	pick(0, [])
	return result
}

/** The query's words reduced to letters and digits, so a tsquery built from them can only hold words and ' | '. */
export function queryWords(terms: string[]): string[] {
	return terms
		.flatMap((term) => term.split(/[^\p{L}\p{N}]+/u))
		.filter((word) => word.length > 0)
		.slice(0, MAX_TERMS)
}

/**
 * The share of the query's lexemes (`ql.lexemes`) the row `alias` holds, as `coverage`: ts_delete drops the ones it
 * holds, one function call per row where counting its lexemes took a subquery each.
 */
export const lexemeCoverage = (alias: string) =>
	`(length(${alias}.tsv) - length(ts_delete(${alias}.tsv, ql.lexemes)))::float8 / greatest(cardinality(ql.lexemes), 1) AS coverage`

/** Whether the chunk row `alias` (with its document joined as `owner`) is of its document's published generation. */
const publishedColumn = (alias: string) => `coalesce(owner.chunk_generation = ${alias}.generation, false) AS published`

/**
 * FROM and WHERE for the chunks of one org in scope (published ones only with `scan` visibility); documents are joined
 * only when filters or a filepath need them.
 */
function chunkScope(
	scope: Scope,
	query: ChunkSearchQuery,
	params: Params,
	visibility: Visibility,
): { from: string; where: string } {
	const conditions = [`c.org_id = ${params.add(scope.orgId)}`, ...(visibility === 'scan' ? [PUBLISHED] : [])]
	if (query.containerTags) conditions.push(`c.container_tag = ANY(${params.add(query.containerTags)}::text[])`)
	if (query.documentId !== undefined) conditions.push(`c.document_id = ${params.add(query.documentId)}`)
	if (query.documentIds !== undefined) conditions.push(`c.document_id = ANY(${params.add(query.documentIds)}::text[])`)
	const onDocuments = metadataConditions(query, params)
	conditions.push(...onDocuments)
	const from = onDocuments.length > 0 ? 'chunks c JOIN documents d ON d.id = c.document_id' : 'chunks c'
	return { from, where: conditions.join(' AND ') }
}
