import type { Scope } from '../domain/types.ts'
import type { Storage } from '../plugins/storage.ts'

/** Memories sampled per search (and per forget-matching) for the similarity baseline and the query's focus. */
export const CONTAINER_SAMPLE_SIZE = 60
const SAMPLE_SECONDS = 60
const SAMPLE_CACHE_ENTRIES = 1000

/**
 * Memory vectors of the searched containers for the similarity baseline (calibration.ts), kept for a minute per
 * organization and container set, so a search costs no extra query most of the time.
 */
export function containerSamples(storage: Storage) {
	const cache = new Map<string, { at: number; vectors: Promise<Float32Array[]> }>()
	return (scope: Scope, containerTags: string[] | null): Promise<Float32Array[]> => {
		const key = `${scope.orgId}\u0000${containerTags ? [...containerTags].sort().join('\u0000') : '*'}`
		const cached = cache.get(key)
		if (cached && Date.now() - cached.at < SAMPLE_SECONDS * 1000) return cached.vectors
		if (cache.size >= SAMPLE_CACHE_ENTRIES) cache.delete(cache.keys().next().value!)
		const vectors = storage.memories.sampleVectors(scope, containerTags, CONTAINER_SAMPLE_SIZE)
		cache.set(key, { at: Date.now(), vectors })
		vectors.catch(() => cache.delete(key))
		return vectors
	}
}
