import { loadOrBuildCache, locateSource } from '../../plugins/embedder-local/model-cache.ts'
import { BENCH_EMBEDDER_CACHE } from './store.ts'

const SIZE = 30_000

let loaded: string[] | null = null

/**
 * The 30,000 most frequent plain English words (the local embedder's vocabulary is in corpus-frequency order), so
 * generated text has a natural word distribution: common words everywhere, content words rare.
 */
export async function loadVocabulary(): Promise<string[]> {
	if (loaded) return loaded
	const { table } = await loadOrBuildCache(BENCH_EMBEDDER_CACHE, await locateSource())
	loaded = table.words.filter((word) => /^[a-z]{2,}$/.test(word)).slice(0, SIZE)
	return loaded
}
