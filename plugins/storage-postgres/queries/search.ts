import type { ChunkSearchQuery, Scope, SearchStore, TextHit, VectorHit } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { metadataConditions } from './document-conditions.ts'
import { Params, type Statement, vectorParam } from './params.ts'

/**
 * With a filter the index alone cannot satisfy (a small container in a large table, a metadata filter), the HNSW scan
 * goes on until it has found `limit` matching rows instead of stopping at `hnsw.ef_search` candidates. Relaxed order
 * is faster; the outer query of the vector search restores the exact order.
 */
export const ITERATIVE_INDEX_SCAN = 'SET LOCAL hnsw.iterative_scan = relaxed_order'

/** How many query words reach the full-text query at most. */
const MAX_TERMS = 64

export function searchStore(db: () => Db): SearchStore {
	return {
		async chunksByVector(scope, query) {
			if (query.limit <= 0) return []
			const statement = vectorSearchStatement(scope, query)
			const rows = await db().transaction(async (tx) => {
				await tx.query(ITERATIVE_INDEX_SCAN)
				return tx.query<{ id: string; document_id: string; similarity: number }>(statement.text, statement.params)
			})
			return rows.map(
				(row): VectorHit => ({ chunkId: row.id, documentId: row.document_id, similarity: row.similarity }),
			)
		},

		async chunksByText(scope, query) {
			const statement = textSearchStatement(scope, query)
			if (!statement || query.limit <= 0) return []
			const rows = await db().query<{ id: string; document_id: string; rank: number; coverage: number }>(
				statement.text,
				statement.params,
			)
			return rows.map(
				(row): TextHit => ({ chunkId: row.id, documentId: row.document_id, rank: row.rank, coverage: row.coverage }),
			)
		},
	}
}

/** Cosine similarity (1 - cosine distance) of ready chunks in scope, best first. */
export function vectorSearchStatement(scope: Scope, query: ChunkSearchQuery): Statement {
	const params = new Params()
	const { from, where } = chunkScope(scope, query, params)
	const vector = params.add(vectorParam(query.vector))
	const text = `WITH nearest AS MATERIALIZED (
		SELECT c.id, c.document_id, c.embedding <=> ${vector}::vector AS distance
		FROM ${from}
		WHERE c.embedding IS NOT NULL AND ${where}
		ORDER BY distance
		LIMIT ${params.add(query.limit)}
	)
	SELECT id, document_id, 1 - distance AS similarity FROM nearest ORDER BY distance, id`
	return { text, params: params.values }
}

/**
 * Full-text rank of ready chunks in scope for any of the query's words, best first; null when no word is left.
 * Words are reduced to letters and digits, so the tsquery text can only hold words and ' | '.
 */
export function textSearchStatement(scope: Scope, query: ChunkSearchQuery): Statement | null {
	const words = queryWords(query.terms)
	if (words.length === 0) return null
	const params = new Params()
	const { from, where } = chunkScope(scope, query, params)
	const tsquery = params.add(words.join(' | '))
	const lexemes = params.add(words.join(' '))
	const text = `SELECT c.id, c.document_id, ts_rank_cd(c.tsv, q.query, 32)::float8 AS rank,
			(SELECT count(*) FROM unnest(tsvector_to_array(c.tsv)) AS lexeme WHERE lexeme = ANY(ql.lexemes))::float8
				/ greatest(cardinality(ql.lexemes), 1) AS coverage
		FROM ${from} CROSS JOIN to_tsquery('english', ${tsquery}) AS q(query)
		CROSS JOIN (SELECT tsvector_to_array(to_tsvector('english', ${lexemes})) AS lexemes) AS ql
		WHERE c.tsv @@ q.query AND ${where}
		ORDER BY rank DESC, c.id
		LIMIT ${params.add(query.limit)}`
	return { text, params: params.values }
}

/** The query's words reduced to letters and digits, so a tsquery built from them can only hold words and ' | '. */
export function queryWords(terms: string[]): string[] {
	return terms
		.flatMap((term) => term.split(/[^\p{L}\p{N}]+/u))
		.filter((word) => word.length > 0)
		.slice(0, MAX_TERMS)
}

/** FROM and WHERE for searchable chunks of one org; documents are joined only when filters or a filepath need them. */
function chunkScope(scope: Scope, query: ChunkSearchQuery, params: Params): { from: string; where: string } {
	const conditions = [`c.org_id = ${params.add(scope.orgId)}`, 'c.ready']
	if (query.containerTags) conditions.push(`c.container_tag = ANY(${params.add(query.containerTags)}::text[])`)
	if (query.documentId !== undefined) conditions.push(`c.document_id = ${params.add(query.documentId)}`)
	const onDocuments = metadataConditions(query, params)
	conditions.push(...onDocuments)
	const from = onDocuments.length > 0 ? 'chunks c JOIN documents d ON d.id = c.document_id' : 'chunks c'
	return { from, where: conditions.join(' AND ') }
}
