import { DIMENSIONS } from './method.ts'

/** The package's word vectors: `words` in rank order and their vectors, row i for words[i]. */
export interface SourceVectors {
	words: string[]
	vectors: Float32Array
}

const VECTORS_KEY = '"vectors":{'
// One `"word":[numbers]` entry; the key may hold any escaped character, the numbers never a quote or bracket.
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y
const SEPARATOR = /[\s,]*/y

/**
 * Reads the package's JSON (`{..., "dimensions", "words": [...], "vectors": {"word": [d1..d100, l2norm, index]}}`)
 * as a stream, a vector at a time, so building the cache holds the vectors as one Float32Array rather than the
 * parsed 300 MB document (about 1.3 GB resident when it was parsed at once).
 */
export async function readSourceVectors(chunks: AsyncIterable<Uint8Array>): Promise<SourceVectors> {
	const decoder = new TextDecoder()
	let pending = ''
	let header: { dimensions: number; words: string[]; wordIndex: number } | null = null
	let vectors = new Float32Array(0)
	let filled = 0
	let chunkCount = 0

	const consumeEntries = (final: boolean) => {
		let position = 0
		for (;;) {
			SEPARATOR.lastIndex = position
			SEPARATOR.exec(pending)
			position = SEPARATOR.lastIndex
			ENTRY.lastIndex = position
			const match = ENTRY.exec(pending)
			if (!match) break
			position = ENTRY.lastIndex
			storeVector(match[1]!, match[2]!)
		}
		pending = pending.slice(position)
		if (final && !pending.startsWith('}')) throw new Error(`unexpected text after the vectors: ${pending.slice(0, 80)}`)
	}

	const storeVector = (key: string, numbers: string) => {
		const values = numbers.split(',')
		const index = Number(values[header!.wordIndex])
		const word = key.includes('\\') ? (JSON.parse(`"${key}"`) as string) : key
		if (header!.words[index] !== word) throw new Error(`the vector of "${word}" names index ${index}`)
		if (values.length <= DIMENSIONS) throw new Error(`the vector of "${word}" has ${values.length} values`)
		for (let d = 0; d < DIMENSIONS; d++) vectors[index * DIMENSIONS + d] = Number(values[d])
		filled++
	}

	for await (const chunk of chunks) {
		pending += decoder.decode(chunk, { stream: true })
		if (!header) {
			const start = pending.indexOf(VECTORS_KEY)
			if (start < 0) continue
			header = parseHeader(pending.slice(0, start))
			vectors = new Float32Array(header.words.length * DIMENSIONS)
			pending = pending.slice(start + VECTORS_KEY.length)
		}
		consumeEntries(false)
		if (++chunkCount % 32 === 0) Bun.gc(false)
	}
	pending += decoder.decode()
	if (!header) throw new Error('no "vectors" object in the word-vector file')
	consumeEntries(true)
	if (filled !== header.words.length) throw new Error(`${filled} vectors for ${header.words.length} words`)
	return { words: header.words, vectors }
}

/** Everything before `"vectors"`: a JSON object once closed. */
function parseHeader(text: string): { dimensions: number; words: string[]; wordIndex: number } {
	const parsed = JSON.parse(`${text.replace(/,\s*$/, '')}}`) as {
		dimensions?: number
		words?: string[]
		wordIndex?: number
	}
	if (parsed.dimensions !== DIMENSIONS) throw new Error(`expected ${DIMENSIONS} dimensions, found ${parsed.dimensions}`)
	if (!Array.isArray(parsed.words)) throw new Error('no "words" list before the vectors')
	return { dimensions: parsed.dimensions, words: parsed.words, wordIndex: parsed.wordIndex ?? DIMENSIONS + 1 }
}
