import type { QueryFilter } from '../domain/filter.ts'
import type { MemoryLink, MemoryRecord } from '../domain/memory.ts'
import type { ChunkRecord, DocumentHeader, Scope } from '../domain/types.ts'
import type { EmbedderPlugin, RerankerPlugin } from '../plugins/contract.ts'
import type { MemorySearchQuery } from '../plugins/memory-storage.ts'
import type { Storage } from '../plugins/storage.ts'
import { type Calibration, type QueryBaseline, similarity } from './calibration.ts'
import { candidateCount } from './candidate-count.ts'
import { chunkCandidates } from './chunk-candidates.ts'
import { focusOnContainer } from './container-focus.ts'
import { containerSamples } from './container-samples.ts'
import { documentHeaders } from './document-headers.ts'
import { reciprocalRankFusion } from './fusion.ts'
import { withIncludes } from './memory-includes.ts'
import { memoryQuery } from './query-view.ts'

export type SearchMode = 'memories' | 'hybrid' | 'documents'

export interface MemorySearchRequest {
	q: string
	containerTags: string[] | null
	filters?: QueryFilter
	/** Results scoring below it are left out (0..1). */
	threshold: number
	limit: number
	mode: SearchMode
	include: {
		documents: boolean
		summaries: boolean
		relatedMemories: boolean
		forgottenMemories: boolean
		/** Deprecated: memory results carry the matching chunks of their documents. */
		chunks: boolean
	}
	rerank: boolean
	/** Chunks of documents at this path (or under it, ending in `/`); memories are not filtered by it. */
	filepath?: string
}

export interface MemoryHit {
	kind: 'memory'
	memory: MemoryRecord
	similarity: number
	/** With include.documents / include.summaries: the memory's source documents. */
	documents?: DocumentHeader[]
	/** With include.relatedMemories: its version chain and extends/derives neighbours. */
	graph?: { memories: Map<string, MemoryRecord>; links: MemoryLink[] }
	/** With include.chunks: matching chunks of its source documents. */
	chunks?: { chunk: ChunkRecord; similarity: number }[]
}

export interface ChunkHit {
	kind: 'chunk'
	chunk: ChunkRecord
	document: DocumentHeader
	similarity: number
	/** A chunk standing in, in memories mode, for a document whose memories are still forming. */
	provisional?: boolean
}

export type SearchHit = MemoryHit | ChunkHit

/** A match on an older version lifts its chain's latest version to this share of its own score. */
const HISTORY_LIFT = 0.9
const RERANK_CANDIDATES = 50
/** Memory candidates read beyond the latest versions still needed, for older versions and memories gone since. */
const READ_AHEAD = 10
/** Documents with memories still forming whose chunks memories mode considers at most (the oldest first). */
const MAX_FORMING_DOCUMENTS = 1_000

/**
 * Memory search (v4): vector and full-text candidates fused by reciprocal rank, each scored with the calibrated
 * similarity (calibration.ts). Older versions take part as candidates: a question about a fact's old value ("where
 * does Alex live" against "Alex lives in Boston", since updated by "Alex moved to Seattle") finds the chain's latest
 * version, which is what is true now. Forgotten and expired memories stay out unless asked for. Hybrid mode adds
 * document chunks scored the same way; documents mode returns chunks only.
 */
export function createMemorySearch(deps: {
	storage: Storage
	embedder: EmbedderPlugin
	reranker: RerankerPlugin | null
	calibration: Calibration
}) {
	const { storage, embedder, reranker, calibration } = deps

	/**
	 * `needed`: how many of the best memories the answer can use; candidates scoring below those are not read (an
	 * older version lends its chain less than its own score, so it cannot lift one above them either).
	 */
	async function memoryHits(
		scope: Scope,
		request: MemorySearchRequest,
		{ vector, terms }: { vector: Float32Array; terms: string[] },
		baseline: QueryBaseline,
		needed: number,
	): Promise<MemoryHit[]> {
		const query: MemorySearchQuery = {
			containerTags: request.containerTags,
			vector,
			terms,
			filters: request.filters,
			includeForgotten: request.include.forgottenMemories,
			includeHistory: true,
			limit: candidateCount(request.limit),
		}
		const [byVector, byText] = await Promise.all([
			storage.memories.searchByVector(scope, query),
			storage.memories.searchByText(scope, query),
		])
		const cosines = new Map(byVector.map((hit) => [hit.memoryId, hit.similarity]))
		const coverage = new Map(byText.map((hit) => [hit.memoryId, hit.coverage]))
		const floor = byVector.at(-1)?.similarity ?? 0
		const fused = reciprocalRankFusion([byVector.map((hit) => hit.memoryId), byText.map((hit) => hit.memoryId)])
		const order = new Map(fused.map(({ id }, index) => [id, index]))
		const score = (id: string) => similarity(baseline, cosines.get(id) ?? floor, coverage.get(id) ?? 0)
		const best = fused
			.map(({ id }) => ({ id, score: score(id) }))
			.sort((a, b) => b.score - a.score || rank(order, a.id) - rank(order, b.id))
		const records = await readBest(scope, best, needed)
		const scores = new Map<string, { memory: MemoryRecord; similarity: number }>()
		for (const memory of records) if (memory.isLatest) scores.set(memory.id, { memory, similarity: score(memory.id) })
		await liftLatestVersions(
			scope,
			query,
			records.filter((memory) => !memory.isLatest),
			score,
			baseline,
			scores,
		)
		return [...scores.values()]
			.map(({ memory, similarity }) => ({ kind: 'memory' as const, memory, similarity }))
			.sort((a, b) => b.similarity - a.similarity || rank(order, a.memory.id) - rank(order, b.memory.id))
	}

	/**
	 * The records of candidates in score order, up to the `needed`-th latest version, read a batch at a time. No
	 * candidate after it can be answered: a latest version ranks after it, an older one lifts its chain's latest to
	 * less than its own score.
	 */
	async function readBest(scope: Scope, best: { id: string; score: number }[], needed: number) {
		const records: MemoryRecord[] = []
		let latest = 0
		let read = 0
		while (read < best.length && latest < needed) {
			const batch = best.slice(read, read + needed - latest + READ_AHEAD)
			read += batch.length
			const found = new Map(
				(
					await storage.memories.getMany(
						scope,
						batch.map(({ id }) => id),
					)
				).map((memory) => [memory.id, memory]),
			)
			for (const { id } of batch) {
				const memory = found.get(id)
				if (!memory) continue
				records.push(memory)
				if (memory.isLatest && ++latest === needed) break
			}
		}
		return records
	}

	/** Older versions that matched lend their score to their chain's latest version, if that one is in scope. */
	async function liftLatestVersions(
		scope: Scope,
		query: MemorySearchQuery,
		older: MemoryRecord[],
		score: (id: string) => number,
		baseline: QueryBaseline,
		scores: Map<string, { memory: MemoryRecord; similarity: number }>,
	) {
		if (older.length === 0) return
		const { memories } = await storage.memories.graph(
			scope,
			older.map((memory) => memory.id),
		)
		const latestOfChain = new Map<string, MemoryRecord>()
		for (const memory of memories) if (memory.isLatest) latestOfChain.set(memory.rootMemoryId ?? memory.id, memory)
		const lifted = new Map<string, number>()
		for (const memory of older) {
			const latest = latestOfChain.get(memory.rootMemoryId ?? memory.id)
			if (!latest) continue
			lifted.set(latest.id, Math.max(lifted.get(latest.id) ?? 0, HISTORY_LIFT * score(memory.id)))
		}
		// Latest versions that were not candidates themselves must still pass the scope, filters and forgetting.
		const unseen = [...lifted.keys()].filter((id) => !scores.has(id))
		const admitted =
			unseen.length === 0
				? []
				: await storage.memories.searchByVector(scope, {
						...query,
						includeHistory: false,
						ids: unseen,
						limit: unseen.length,
					})
		const admittedCosine = new Map(admitted.map((hit) => [hit.memoryId, hit.similarity]))
		const records = new Map(memories.map((memory) => [memory.id, memory]))
		for (const [id, liftedScore] of lifted) {
			const current = scores.get(id)
			if (current) current.similarity = Math.max(current.similarity, liftedScore)
			else if (admittedCosine.has(id)) {
				const own = similarity(baseline, admittedCosine.get(id)!)
				scores.set(id, { memory: records.get(id)!, similarity: Math.max(own, liftedScore) })
			}
		}
	}

	async function chunkHits(
		scope: Scope,
		request: MemorySearchRequest,
		vector: Float32Array,
		baseline: QueryBaseline,
		documentIds?: string[],
	): Promise<ChunkHit[]> {
		const { ranked, floor } = await chunkCandidates(storage, scope, {
			q: request.q,
			vector,
			containerTags: request.containerTags,
			filters: request.filters,
			filepath: request.filepath,
			documentIds,
			limit: candidateCount(request.limit),
		})
		const scored = ranked
			.map((candidate, index) => ({
				candidate,
				index,
				score: similarity(baseline, candidate.cosine ?? floor, candidate.coverage),
			}))
			.sort((a, b) => b.score - a.score || a.index - b.index)
		// Without reranking and include.chunks, chunks past `limit` can never be returned, so their rows are not read.
		const readsAll = (request.rerank && reranker) || (request.include.chunks && !documentIds)
		const kept = readsAll ? scored : scored.slice(0, request.limit)
		const chunks = new Map(
			(
				await storage.chunks.byIds(
					scope,
					kept.map(({ candidate }) => candidate.chunkId),
				)
			).map((c) => [c.id, c]),
		)
		const documents = new Map(
			(await documentHeaders(storage, scope, [...new Set(kept.map(({ candidate }) => candidate.documentId))])).map(
				(d) => [d.id, d],
			),
		)
		return kept.flatMap(({ candidate, score }) => {
			const chunk = chunks.get(candidate.chunkId)
			const document = documents.get(candidate.documentId)
			if (!chunk || !document) return []
			return [{ kind: 'chunk' as const, chunk, document, similarity: score }]
		})
	}

	/**
	 * With dynamic dreaming a document is done before its memories exist. Until they do, memories mode answers from
	 * its chunks, matched and scored like memories (focused query, same calibrated scale, same threshold) and marked
	 * provisional. Formation marks a document dreamed in the transaction that writes its memories; the forming
	 * documents are read before the memories, so a formation committing in between can only show both, and then the
	 * chunks of a document that is a source of a memory found go.
	 */
	async function provisionalHits(
		scope: Scope,
		request: MemorySearchRequest,
		forming: string[],
		vector: Float32Array,
		baseline: QueryBaseline,
	): Promise<ChunkHit[]> {
		if (forming.length === 0) return []
		const hits = await chunkHits(scope, request, vector, baseline, forming)
		return hits.map((hit) => ({ ...hit, provisional: true }))
	}

	function withoutFormed(provisional: ChunkHit[], memories: MemoryHit[]): ChunkHit[] {
		if (provisional.length === 0) return provisional
		const sources = new Set(memories.flatMap((hit) => hit.memory.documentIds))
		return provisional.filter((hit) => !sources.has(hit.document.id))
	}

	async function rerankHits(request: MemorySearchRequest, hits: SearchHit[]): Promise<SearchHit[]> {
		if (!request.rerank || !reranker || hits.length === 0) return hits
		const head = hits.slice(0, RERANK_CANDIDATES)
		const scores = await reranker.rerank(request.q, head.map(textOf))
		const reranked = head.map((hit, i) => ({ ...hit, similarity: scores[i] ?? 0 }))
		return [...reranked, ...hits.slice(RERANK_CANDIDATES)].sort((a, b) => b.similarity - a.similarity)
	}

	const samples = containerSamples(storage)

	return async function searchMemories(scope: Scope, request: MemorySearchRequest): Promise<SearchHit[]> {
		const [query, sample] = await Promise.all([memoryQuery(embedder, request.q), samples(scope, request.containerTags)])
		const focused = { ...query, vector: focusOnContainer(query.vector, sample) }
		const focusedBaseline = await calibration.baseline(focused.vector, sample)
		const wantsMemories = request.mode !== 'documents'
		const wantsChunks = request.mode !== 'memories' || request.include.chunks
		// Next to memories, chunks are matched with the query as written: the two halves then find different evidence
		// (docs/measurements.md).
		const searchChunks = async () =>
			request.mode === 'documents'
				? chunkHits(scope, request, focused.vector, focusedBaseline)
				: chunkHits(scope, request, query.vector, await calibration.baseline(query.vector, sample))
		const forming =
			request.mode === 'memories'
				? await storage.memories.formingDocuments(scope, request.containerTags, MAX_FORMING_DOCUMENTS)
				: []
		// The answer uses the best `limit` memories (those the reranker reads), unless the provisional chunks of
		// forming documents are weighed against every memory found.
		const needed =
			forming.length > 0
				? Number.POSITIVE_INFINITY
				: request.rerank && reranker
					? Math.max(request.limit, RERANK_CANDIDATES)
					: request.limit
		const [memories, chunks, provisional] = await Promise.all([
			wantsMemories ? memoryHits(scope, request, focused, focusedBaseline, needed) : Promise.resolve([]),
			wantsChunks ? searchChunks() : Promise.resolve([]),
			provisionalHits(scope, request, forming, focused.vector, focusedBaseline),
		])
		const others = request.mode === 'memories' ? withoutFormed(provisional, memories) : chunks
		const pool: SearchHit[] = [...memories, ...others].sort((a, b) => b.similarity - a.similarity)
		const hits = (await rerankHits(request, pool))
			.filter((hit) => hit.similarity >= request.threshold)
			.slice(0, request.limit)
		await withIncludes(storage, scope, request, hits, chunks)
		return hits
	}
}

function rank(order: Map<string, number>, id: string): number {
	return order.get(id) ?? Number.MAX_SAFE_INTEGER
}

function textOf(hit: SearchHit): string {
	return hit.kind === 'memory' ? hit.memory.memory : hit.chunk.content
}

export type MemorySearch = ReturnType<typeof createMemorySearch>
