const PER_RESULT = 5
const AT_LEAST = 50
const AT_MOST = 200

/**
 * How many candidates a search draws from each ranking (vector, full text) before fusing them: five per result asked
 * for, from 50 to 200. v3 and v4 draw alike; measured in docs/search-scoring.md.
 */
export function candidateCount(limit: number): number {
	return Math.min(AT_MOST, Math.max(AT_LEAST, limit * PER_RESULT))
}
