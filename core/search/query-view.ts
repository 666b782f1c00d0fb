import type { EmbedderPlugin } from '../plugins/contract.ts'
import { queryTerms } from './terms.ts'

/**
 * Memories speak of the person behind a container in the third person ("The user lives in Boston"), while people
 * ask in the first ("where do I live?"). The query is also read with I/me/my turned into the user.
 */
export function thirdPerson(query: string): string {
	return query
		.replace(/\bI am\b/g, 'the user is')
		.replace(/\bI'm\b/gi, 'the user is')
		.replace(/\b(?:I|me|myself)\b/g, 'the user')
		.replace(/\bmy\b/gi, "the user's")
		.replace(/\bmine\b/gi, "the user's")
		.replace(/\bdo the user\b/gi, 'does the user')
		.replace(/\bhave the user\b/gi, 'has the user')
}

/**
 * What memory search matches a query with: the mean of the vectors of the query as written and in the third
 * person (one vector, so one index scan), and the words of both.
 */
export async function memoryQuery(
	embedder: EmbedderPlugin,
	query: string,
): Promise<{ vector: Float32Array; terms: string[] }> {
	const rewritten = thirdPerson(query)
	if (rewritten === query) {
		const [vector] = await embedder.embed([query], 'query')
		return { vector: vector!, terms: queryTerms(query) }
	}
	const [original, third] = await embedder.embed([query, rewritten], 'query')
	const sum = original!.map((value, i) => value + third![i]!)
	const length = Math.hypot(...sum) || 1
	return {
		vector: sum.map((value) => value / length),
		terms: [...new Set([...queryTerms(query), ...queryTerms(rewritten)])],
	}
}
