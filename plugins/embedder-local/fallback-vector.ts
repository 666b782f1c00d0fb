import { normalizeText } from './tokenize.ts'

/**
 * A deterministic unit vector for text with no known word (names, codes, other scripts, the empty string): hashed
 * character trigrams, so such texts still land near texts that share their spelling. pgvector's cosine distance
 * of a zero vector is NaN, so this never returns one.
 */
export function hashedTrigramVector(text: string, dimensions: number): Float32Array {
	const vector = new Float64Array(dimensions)
	const chunks = normalizeText(text).split(/\s+/).filter(Boolean)
	for (const chunk of chunks.length > 0 ? chunks : ['']) {
		const padded = `<${chunk}>`
		const grams = padded.length <= 3 ? [padded] : trigrams(padded)
		for (const gram of grams) {
			const hash = fnv1a(gram)
			vector[hash % dimensions]! += hash & 0x80000000 ? -1 : 1
		}
	}
	let norm = Math.hypot(...vector)
	if (norm === 0) {
		// Every bucket cancelled out: fall back to one bucket chosen by the whole text.
		vector[fnv1a(text) % dimensions] = 1
		norm = 1
	}
	return Float32Array.from(vector, (value) => value / norm)
}

function trigrams(text: string): string[] {
	const grams: string[] = []
	for (let i = 0; i + 3 <= text.length; i++) grams.push(text.slice(i, i + 3))
	return grams
}

/** 32-bit FNV-1a over UTF-16 code units: small, fast and stable across runtimes. */
export function fnv1a(text: string): number {
	let hash = 0x811c9dc5
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i)
		hash = Math.imul(hash, 0x01000193)
	}
	return hash >>> 0
}
