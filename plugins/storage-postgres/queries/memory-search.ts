import type { MemorySearchQuery, MemoryTextHit, MemoryVectorHit, Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import type { CommonWords } from './common-words.ts'
import { filterSql } from './filters.ts'
import { type LargeScopes, scopeKey } from './large-scopes.ts'
import { ACTIVE, memoryScope } from './memory-rows.ts'
import { Params, type Statement, vectorParam } from './params.ts'
import { vectorScanSettings } from './search.ts'
import { queryWith } from './set-local.ts'
import {
	type Candidates,
	lexemeCoverage,
	matchedColumn,
	plainAnswer,
	queryWords,
	textCandidates,
} from './text-candidates.ts'

export async function memoriesByVector(db: Db, scope: Scope, query: MemorySearchQuery): Promise<MemoryVectorHit[]> {
	if (query.limit <= 0) return []
	const rows = await queryWith<{ id: string; similarity: number }>(
		db,
		vectorScanSettings({ efSearch: MEMORY_EF_SEARCH }),
		memoryVectorStatement(scope, query),
	)
	return rows.map((row) => ({ memoryId: row.id, similarity: row.similarity }))
}

/**
 * The slice the sample is drawn from: keeps the cost bounded in a very large container. The sample is spread by a
 * hash of the memory's text rather than `random()`, so the same memories give the same baseline in every run.
 */
const SAMPLE_POOL = 2000

export async function sampleMemoryVectors(
	db: Db,
	scope: Scope,
	containerTags: string[] | null,
	count: number,
): Promise<Float32Array[]> {
	const params = new Params()
	const where = [...memoryScope(scope.orgId, containerTags, params), 'm.is_latest', ACTIVE, 'm.embedding IS NOT NULL']
	const rows = await db.query<{ embedding: string }>(
		`WITH pool AS (SELECT m.memory, m.embedding FROM memories m WHERE ${where.join(' AND ')} LIMIT ${params.add(SAMPLE_POOL)})
		SELECT embedding::text AS embedding FROM pool ORDER BY md5(memory) LIMIT ${params.add(count)}`,
		params.values,
	)
	return rows.map((row) => Float32Array.from(JSON.parse(row.embedding) as number[]))
}

/**
 * Full-text hits of memories in scope, best first: every match ranked while the scope holds at most PLAIN_RANK_ROWS,
 * the match tiers' candidates past that (text-candidates.ts).
 */
export async function memoriesByText(
	db: Db,
	scope: Scope,
	query: MemorySearchQuery,
	largeScopes: LargeScopes,
	commonWords: CommonWords,
): Promise<MemoryTextHit[]> {
	const words = queryWords(query.terms)
	if (query.limit <= 0 || words.length === 0) return []
	const run = <Row>(candidates: Candidates, common?: ReadonlySet<string>) => {
		const statement = memoryTextStatement(scope, query, words, candidates, common)
		return db.query<TextRow & Row>(statement.text, statement.params)
	}
	const rows = await largeScopes.search(
		scopeKey(scope, query),
		async () => plainAnswer(await run<{ matched: number }>('plain')),
		async () => run('tiers', await commonWords.among(words)),
	)
	return rows.map((row) => ({ memoryId: row.id, rank: row.rank, coverage: row.coverage }))
}

interface TextRow {
	id: string
	rank: number
	coverage: number
}

/** The memory index is built sparser than the chunk index (see schema-memories.ts): searches look wider. */
export const MEMORY_EF_SEARCH = 100

/** Cosine similarity (1 - cosine distance) of memories in scope, best first. */
export function memoryVectorStatement(scope: Scope, query: MemorySearchQuery): Statement {
	const params = new Params()
	const where = searchScope(scope, query, params)
	const vector = params.add(vectorParam(query.vector))
	const text = `WITH nearest AS MATERIALIZED (
		SELECT m.id, m.embedding <=> ${vector}::vector AS distance
		FROM memories m
		WHERE m.embedding IS NOT NULL AND ${where}
		ORDER BY distance
		LIMIT ${params.add(query.limit)}
	)
	SELECT id, 1 - distance AS similarity FROM nearest ORDER BY distance, id`
	return { text, params: params.values }
}

/**
 * Full-text rank of memories in scope for any of `words` (the query's, queryWords; at least one), best first, with the
 * share of the query's lexemes each one contains. `plain` ranks every match (each row says how many there were,
 * `matched`, counted up to one past PLAIN_RANK_ROWS), `tiers` the match tiers' candidates. Ranked by word frequency
 * (`ts_rank`), cheaper than the cover density chunks are ranked by: only the candidates' order counts here
 * (docs/search-scoring.md).
 */
export function memoryTextStatement(
	scope: Scope,
	query: MemorySearchQuery,
	words: string[],
	candidates: Candidates,
	common: ReadonlySet<string> = new Set(),
): Statement {
	const params = new Params()
	const where = searchScope(scope, query, params)
	const lexemes = params.add(words.join(' '))
	const limit = params.add(query.limit)
	const union = textCandidates(
		params,
		candidates,
		{ words, limit: query.limit, common },
		{
			alias: 'm',
			from: `memories m CROSS JOIN (SELECT tsvector_to_array(to_tsvector('english', ${lexemes})) AS lexemes) AS ql`,
			where,
			columns: (anyWord) => `ts_rank(m.tsv, ${anyWord}, 32)::float8 AS rank, ${lexemeCoverage('m')}`,
		},
	)
	const text = `WITH candidates AS MATERIALIZED (${union})
		SELECT id, rank, coverage${matchedColumn(candidates)} FROM candidates ORDER BY rank DESC, id LIMIT ${limit}`
	return { text, params: params.values }
}

function searchScope(scope: Scope, query: MemorySearchQuery, params: Params): string {
	const conditions = memoryScope(scope.orgId, query.containerTags, params)
	if (query.ids) conditions.push(`m.id = ANY(${params.add(query.ids)}::text[])`)
	if (!query.includeHistory) conditions.push('m.is_latest')
	if (!query.includeForgotten) conditions.push(ACTIVE)
	if (query.filters) conditions.push(filterSql(query.filters, 'm.metadata', params))
	return conditions.join(' AND ')
}
