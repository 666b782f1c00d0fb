import type { SearchHit } from '../../search/memory-search.ts'

/** Share of the shorter text's words the other holds, at or above which two results say the same thing. */
const OVERLAP = 0.8

const wordsOf = (hit: SearchHit) =>
	new Set((hit.kind === 'chunk' ? hit.chunk.content : hit.memory.memory).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])

function overlaps(a: Set<string>, b: Set<string>): boolean {
	const [small, large] = a.size <= b.size ? [a, b] : [b, a]
	if (small.size === 0) return false
	let shared = 0
	for (const word of small) if (large.has(word)) shared++
	return shared / small.size >= OVERLAP
}

/**
 * `rerank: "aggregate"`: after re-ranking, results that repeat an earlier, better-ranked one (a memory and the chunk
 * it was read from, two chunks of one passage) are dropped in its favour, so the `limit` results carry distinct context.
 */
export function aggregateHits(hits: SearchHit[], limit: number): SearchHit[] {
	const kept: { hit: SearchHit; words: Set<string> }[] = []
	for (const hit of hits) {
		if (kept.length === limit) break
		const words = wordsOf(hit)
		if (!kept.some((earlier) => overlaps(earlier.words, words))) kept.push({ hit, words })
	}
	return kept.map(({ hit }) => hit)
}
