import type { Analyser } from './nlp.ts'

const NOT_NAMES = new Set(['user', 'the', 'i', 'container', 'assistant'])

/**
 * The name of who the container is about, from `entityContext` ("The user is Alex, a nurse in Boston" -> "Alex"):
 * its first run of proper nouns. Null when it names no one.
 */
export function entityName(analyse: Analyser, entityContext: string | null): string | null {
	if (!entityContext?.trim()) return null
	for (const sentence of analyse(entityContext)) {
		const { tokens } = sentence
		for (let start = 0; start < tokens.length; start++) {
			if (tokens[start]!.pos !== 'PROPN' || NOT_NAMES.has(tokens[start]!.normal)) continue
			let end = start
			while (tokens[end]?.pos === 'PROPN' && !NOT_NAMES.has(tokens[end]!.normal)) end++
			return tokens
				.slice(start, end)
				.map((token) => token.value)
				.join(' ')
		}
	}
	return null
}
