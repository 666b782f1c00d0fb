/** The usual RRF constant: damps the advantage of the very first ranks. */
const RRF_K = 60

/**
 * Reciprocal rank fusion: each ranked list contributes 1 / (k + rank) for every item it holds.
 * Returns item ids with their fused score, best first.
 */
export function reciprocalRankFusion(lists: string[][], k = RRF_K): { id: string; score: number }[] {
	const scores = new Map<string, number>()
	for (const list of lists) {
		for (const [index, id] of list.entries()) scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1))
	}
	return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score)
}
