import type { ChunkSearchQuery, Scope, SearchStore, TextHit, VectorHit } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { PUBLISHED } from './chunks.ts'
import { CommonWords } from './common-words.ts'
import { metadataConditions } from './document-conditions.ts'
import { LargeScopes, scopeKey } from './large-scopes.ts'
import { Params, type Statement, vectorParam } from './params.ts'
import { type LocalSettings, queryWith } from './set-local.ts'
import {
	type Candidates,
	lexemeCoverage,
	matchedColumn,
	plainAnswer,
	queryWords,
	textCandidates,
} from './text-candidates.ts'

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

/**
 * The match tiers' scans are planned for their LIMIT. Allowed to, the planner takes a word in a few percent of a large
 * container by a scan of the table in its stored order, which reads every row of the containers stored before it
 * (22,000 at 100k chunks, four times in one search); through the index a tier reads its own rows only.
 */
export const TIER_SCANS: LocalSettings = { enable_seqscan: 'off' }

export function searchStore(db: () => Db): SearchStore {
	const largeScopes = new LargeScopes()
	const commonWords = new CommonWords(db, 'chunks')
	return {
		async chunksByVector(scope, query) {
			if (query.limit <= 0) return []
			const run = (visibility: Visibility) => {
				return queryWith<{ id: string; document_id: string; similarity: number; published: boolean }>(
					db(),
					vectorScanSettings(),
					vectorSearchStatement(scope, query, visibility),
				)
			}
			const rows = await publishedRows(run)
			return rows.map(
				(row): VectorHit => ({ chunkId: row.id, documentId: row.document_id, similarity: row.similarity }),
			)
		},

		async chunksByText(scope, query) {
			const words = queryWords(query.terms)
			if (query.limit <= 0 || words.length === 0) return []
			const run = <Row>(candidates: Candidates, visibility: Visibility, common?: ReadonlySet<string>) => {
				const statement = chunkTextStatement(scope, query, words, candidates, visibility, common)
				return candidates === 'tiers'
					? queryWith<TextRow & Row>(db(), TIER_SCANS, statement)
					: db().query<TextRow & Row>(statement.text, statement.params)
			}
			const rows = await largeScopes.search(
				scopeKey(scope, query),
				// A scope with more matches than one scan ranks goes to the match tiers: no second run here.
				() => publishedRows(async (visibility) => plainAnswer(await run<{ matched: number }>('plain', visibility))),
				async () => {
					const common = await commonWords.among(words)
					return publishedRows((visibility) => run('tiers', visibility, common))
				},
			)
			return rows.map(
				(row): TextHit => ({ chunkId: row.id, documentId: row.document_id, rank: row.rank, coverage: row.coverage }),
			)
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
 * Full-text rank of chunks in scope for any of `words` (the query's, queryWords; at least one), best first: the best
 * `limit` candidates (text-candidates.ts) with their coverage of the query's lexemes and whether they are published
 * (see Visibility: with `scan`, only published chunks are read). `plain` ranks every match, each row saying how many
 * there were (`matched`, counted up to one past PLAIN_RANK_ROWS): the answer is exact while that is at most
 * PLAIN_RANK_ROWS, past it a sample, and `tiers` (the match tiers' candidates only) takes over.
 */
export function chunkTextStatement(
	scope: Scope,
	query: ChunkSearchQuery,
	words: string[],
	candidates: Candidates,
	visibility: Visibility,
	common: ReadonlySet<string> = new Set(),
): Statement {
	const params = new Params()
	const { from, where } = chunkScope(scope, query, params, visibility)
	const lexemes = params.add(words.join(' '))
	const limit = params.add(query.limit)
	const union = textCandidates(
		params,
		candidates,
		{ words, limit: query.limit, common },
		{ alias: 'c', from, where, columns: (anyWord) => `ts_rank_cd(c.tsv, ${anyWord}, 32)::float8 AS rank` },
	)
	const text = `WITH candidates AS MATERIALIZED (${union})
		SELECT c.id, c.document_id, best.rank,
			${lexemeCoverage('c')},
			${publishedColumn('c')}${matchedColumn(candidates)}
		FROM (SELECT id, rank FROM candidates ORDER BY rank DESC, id LIMIT ${limit}) AS best
		JOIN chunks c ON c.id = best.id
		LEFT JOIN documents owner ON owner.id = c.document_id
		CROSS JOIN (SELECT tsvector_to_array(to_tsvector('english', ${lexemes})) AS lexemes) AS ql
		ORDER BY best.rank DESC, c.id`
	return { text, params: params.values }
}

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
