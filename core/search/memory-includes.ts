import type { Scope } from '../domain/types.ts'
import type { Storage } from '../plugins/storage.ts'
import { documentHeaders } from './document-headers.ts'
import type { ChunkHit, MemoryHit, MemorySearchRequest, SearchHit } from './memory-search.ts'

/**
 * What `include` adds to memory results: their source documents (documents, summaries), their version chain and
 * extends/derives neighbours (relatedMemories), the matching chunks of their documents (the deprecated chunks).
 */
export async function withIncludes(
	storage: Storage,
	scope: Scope,
	request: MemorySearchRequest,
	hits: SearchHit[],
	chunks: ChunkHit[],
): Promise<void> {
	const memoryHits = hits.filter((hit): hit is MemoryHit => hit.kind === 'memory')
	if (memoryHits.length === 0) return
	if (request.include.documents || request.include.summaries) {
		const ids = [...new Set(memoryHits.flatMap((hit) => hit.memory.documentIds))]
		const documents = new Map((await documentHeaders(storage, scope, ids)).map((d) => [d.id, d]))
		for (const hit of memoryHits) hit.documents = hit.memory.documentIds.flatMap((id) => documents.get(id) ?? [])
	}
	if (request.include.relatedMemories) {
		const graph = await storage.memories.graph(
			scope,
			memoryHits.map((hit) => hit.memory.id),
		)
		const memories = new Map(graph.memories.map((memory) => [memory.id, memory]))
		for (const hit of memoryHits) hit.graph = { memories, links: graph.links }
	}
	if (request.include.chunks) {
		for (const hit of memoryHits) {
			const sources = new Set(hit.memory.documentIds)
			hit.chunks = chunks
				.filter((chunk) => sources.has(chunk.document.id))
				.map((chunk) => ({ chunk: chunk.chunk, similarity: chunk.similarity }))
		}
	}
}
