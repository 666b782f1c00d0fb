/** Finds which chunks of the document a sentence came from, by its text. */
export type ChunkLocator = (sentence: string) => number[]

const PROBE_CHARS = 40

function flatten(text: string): string {
	return text
		.replace(/[\u2018\u2019\u02bc]/g, "'")
		.replace(/[\u201c\u201d]/g, '"')
		.replace(/\s+/g, ' ')
		.trim()
		.toLowerCase()
}

/**
 * Chunks holding the sentence; when none holds all of it (a sentence split across chunks), the chunks holding its
 * first or last words.
 */
export function chunkLocator(chunks: { position: number; content: string }[]): ChunkLocator {
	const flat = chunks.map((chunk) => ({ position: chunk.position, content: flatten(chunk.content) }))
	const holding = (text: string) => flat.filter((chunk) => chunk.content.includes(text)).map((chunk) => chunk.position)
	return (sentence) => {
		const text = flatten(sentence)
		if (text === '') return []
		const whole = holding(text)
		if (whole.length > 0 || text.length <= PROBE_CHARS) return whole
		return [...new Set([...holding(text.slice(0, PROBE_CHARS)), ...holding(text.slice(-PROBE_CHARS))])].sort(
			(a, b) => a - b,
		)
	}
}
