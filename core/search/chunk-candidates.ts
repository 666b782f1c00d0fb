import type { QueryFilter } from '../domain/filter.ts'
import type { Scope } from '../domain/types.ts'
import type { Storage } from '../plugins/storage.ts'
import { reciprocalRankFusion } from './fusion.ts'
import { queryTerms } from './terms.ts'

export interface ChunkCandidate {
	chunkId: string
	documentId: string
	/** Cosine similarity, when the vector ranking found the chunk. */
	cosine: number | undefined
	/** Full-text rank 0..1, when the full-text ranking found the chunk. */
	textRank: number | undefined
	/** Share of the query's words the chunk contains (0 when the full-text ranking did not find it). */
	coverage: number
}

/**
 * Chunk candidates of a query from the vector and the full-text ranking, fused by reciprocal rank (best first),
 * with each side's raw evidence so callers can score them their way (v3 and v4 search share this).
 */
export async function chunkCandidates(
	storage: Storage,
	scope: Scope,
	request: {
		q: string
		vector: Float32Array
		containerTags: string[] | null
		filters?: QueryFilter
		documentId?: string
		documentIds?: string[]
		filepath?: string
		limit: number
	},
): Promise<{ ranked: ChunkCandidate[]; floor: number }> {
	const query = {
		containerTags: request.containerTags,
		vector: request.vector,
		terms: queryTerms(request.q),
		filters: request.filters,
		documentId: request.documentId,
		documentIds: request.documentIds,
		filepath: request.filepath,
		limit: request.limit,
	}
	const [byVector, byText] = await Promise.all([
		storage.search.chunksByVector(scope, query),
		storage.search.chunksByText(scope, query),
	])
	const vectorHits = new Map(byVector.map((hit) => [hit.chunkId, hit]))
	const textHits = new Map(byText.map((hit) => [hit.chunkId, hit]))
	const ranked = reciprocalRankFusion([byVector.map((hit) => hit.chunkId), byText.map((hit) => hit.chunkId)]).map(
		({ id }) => {
			const vectorHit = vectorHits.get(id)
			const textHit = textHits.get(id)
			return {
				chunkId: id,
				documentId: (vectorHit ?? textHit)!.documentId,
				cosine: vectorHit?.similarity,
				textRank: textHit?.rank,
				coverage: textHit?.coverage ?? 0,
			}
		},
	)
	return { ranked, floor: byVector.at(-1)?.similarity ?? 0 }
}
