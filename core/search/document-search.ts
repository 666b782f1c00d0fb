import type { QueryFilter } from '../domain/filter.ts'
import type { ChunkRecord, DocumentHeader, Scope } from '../domain/types.ts'
import { notFound } from '../errors.ts'
import type { EmbedderPlugin, RerankerPlugin } from '../plugins/contract.ts'
import type { Storage } from '../plugins/storage.ts'
import { candidateCount } from './candidate-count.ts'
import { chunkCandidates } from './chunk-candidates.ts'
import { documentHeaders } from './document-headers.ts'

export interface DocumentSearchRequest {
	q: string
	containerTags: string[] | null
	filters?: QueryFilter
	limit: number
	chunkThreshold: number
	onlyMatchingChunks: boolean
	includeFullDocs: boolean
	includeSummary: boolean
	rerank: boolean
	docId?: string
	filepath?: string
}

export interface ScoredChunk {
	chunk: ChunkRecord
	score: number
	isRelevant: boolean
}

export interface DocumentHit {
	document: DocumentHeader
	score: number
	chunks: ScoredChunk[]
}

const RERANK_CANDIDATES = 50
/** Scores below this show as 0 (four decimals): no evidence either way. */
const MIN_SCORE = 0.00005

/**
 * A chunk's relevance in 0..1: the probabilistic OR of its cosine similarity and its full-text rank, so a strong
 * signal from either side counts. A chunk missing from the vector list is assumed no closer than the last hit there.
 */
export function chunkScore(similarity: number | undefined, floor: number, textRank: number | undefined): number {
	const semantic = Math.max(0, Math.min(1, similarity ?? floor))
	const lexical = Math.max(0, Math.min(1, textRank ?? 0))
	return 1 - (1 - semantic) * (1 - lexical)
}

/** The entries of the first `limit` documents to appear in `ranked`, in rank order. */
export function ofFirstDocuments<T extends { documentId: string }>(ranked: T[], limit: number): T[] {
	const documents = new Set<string>()
	return ranked.filter((entry) => {
		if (documents.has(entry.documentId)) return true
		if (documents.size >= limit) return false
		documents.add(entry.documentId)
		return true
	})
}

export function createDocumentSearch(deps: {
	storage: Storage
	embedder: EmbedderPlugin
	reranker: RerankerPlugin | null
}) {
	const { storage, embedder, reranker } = deps

	/** Vector and full-text candidates fused by reciprocal rank, each with its 0..1 score, best first. */
	async function rankChunks(scope: Scope, request: DocumentSearchRequest, documentId: string | undefined) {
		const [vector] = await embedder.embed([request.q], 'query')
		const { ranked, floor } = await chunkCandidates(storage, scope, {
			q: request.q,
			vector: vector!,
			containerTags: request.containerTags,
			filters: request.filters,
			documentId,
			filepath: request.filepath,
			limit: candidateCount(request.limit),
		})
		return ranked.map((candidate) => ({
			chunkId: candidate.chunkId,
			documentId: candidate.documentId,
			score: chunkScore(candidate.cosine, floor, candidate.textRank),
		}))
	}

	async function rerankChunks(request: DocumentSearchRequest, ranked: { chunk: ChunkRecord; score: number }[]) {
		if (!request.rerank || !reranker || ranked.length === 0) return ranked
		const head = ranked.slice(0, RERANK_CANDIDATES)
		const scores = await reranker.rerank(
			request.q,
			head.map((entry) => entry.chunk.content),
		)
		const reranked = head.map((entry, i) => ({ ...entry, score: scores[i] ?? 0 })).sort((a, b) => b.score - a.score)
		return [...reranked, ...ranked.slice(RERANK_CANDIDATES)]
	}

	async function withNeighbours(scope: Scope, hits: DocumentHit[]): Promise<void> {
		const wanted = hits.map((hit) => {
			const have = new Set(hit.chunks.map((entry) => entry.chunk.position))
			const positions = [...have].flatMap((p) => [p - 1, p + 1]).filter((p) => p >= 0 && !have.has(p))
			return { documentId: hit.document.id, positions: [...new Set(positions)] }
		})
		const neighbours = await storage.chunks.atPositions(
			scope,
			wanted.filter((w) => w.positions.length > 0),
		)
		for (const hit of hits) {
			for (const chunk of neighbours.filter((n) => n.documentId === hit.document.id)) {
				hit.chunks.push({ chunk, score: 0, isRelevant: false })
			}
			hit.chunks.sort((a, b) => a.chunk.position - b.chunk.position)
		}
	}

	return async function searchDocuments(scope: Scope, request: DocumentSearchRequest): Promise<DocumentHit[]> {
		let documentId: string | undefined
		if (request.docId) {
			const document = await storage.documents.get(scope, request.docId)
			if (!document) throw notFound('Document')
			documentId = document.id
		}
		// Best score first (fusion order breaks ties); a chunk matching neither by meaning nor by word is left out.
		const ranked = (await rankChunks(scope, request, documentId))
			.map((entry, index) => ({ ...entry, index }))
			.filter((entry) => entry.score >= Math.max(MIN_SCORE, request.chunkThreshold))
			.sort((a, b) => b.score - a.score || a.index - b.index)
		// Without reranking the order is final, so only the chunks of the first `limit` documents are read.
		const reranks = request.rerank && reranker !== null
		const wanted = reranks ? ranked : ofFirstDocuments(ranked, request.limit)
		const chunks = new Map(
			(
				await storage.chunks.byIds(
					scope,
					wanted.map((entry) => entry.chunkId),
				)
			).map((c) => [c.id, c]),
		)
		const ordered = await rerankChunks(
			request,
			wanted.flatMap((entry) => {
				const chunk = chunks.get(entry.chunkId)
				return chunk ? [{ chunk, score: entry.score }] : []
			}),
		)

		const byDocument = new Map<string, ScoredChunk[]>()
		for (const { chunk, score } of ordered) {
			const list = byDocument.get(chunk.documentId)
			if (list) list.push({ chunk, score, isRelevant: true })
			else if (byDocument.size < request.limit) byDocument.set(chunk.documentId, [{ chunk, score, isRelevant: true }])
		}
		const documents = new Map(
			(await documentHeaders(storage, scope, [...byDocument.keys()])).map((document) => [document.id, document]),
		)
		const hits: DocumentHit[] = [...byDocument.entries()].flatMap(([id, scored]) => {
			const document = documents.get(id)
			return document ? [{ document, score: Math.max(...scored.map((s) => s.score)), chunks: scored }] : []
		})
		if (!request.onlyMatchingChunks) await withNeighbours(scope, hits)
		// A reranker's order holds for its head only; the documents still come back best score first.
		return hits.sort((a, b) => b.score - a.score)
	}
}

export type DocumentSearch = ReturnType<typeof createDocumentSearch>
