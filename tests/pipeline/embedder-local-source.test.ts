import { describe, expect, it } from 'bun:test'
import { buildWordVectorTable } from '../../plugins/embedder-local/build-cache.ts'
import { DIMENSIONS } from '../../plugins/embedder-local/method.ts'
import { readSourceVectors } from '../../plugins/embedder-local/read-source.ts'

/** A file in the package's format: words in rank order, each vector its dimensions, its L2 norm, then its index. */
function sourceJson(words: string[]) {
	const vectors = Object.fromEntries(
		words.map((word, index) => {
			const values = Array.from({ length: DIMENSIONS }, (_, d) => Math.round(Math.sin(index * 7 + d) * 1e5) / 1e5)
			return [word, [...values, Math.hypot(...values), index]]
		}),
	)
	return JSON.stringify({
		precision: 8,
		l2NormIndex: 100,
		wordIndex: 101,
		size: words.length,
		dimensions: 100,
		words,
		vectors,
		unkVector: new Array(101).fill(0),
	})
}

function* pieces(text: string, size: number) {
	const bytes = new TextEncoder().encode(text)
	for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size)
}

async function* stream(text: string, size: number) {
	yield* pieces(text, size)
}

describe('embedder-local word-vector source', () => {
	const words = ['the', ',', ']', '"', 'vectors', 'naïve', '\\', '":[', 'cello', 'oat']
	const json = sourceJson(words)

	it('reads the vectors a piece at a time exactly as parsing the whole file does, however the pieces fall', async () => {
		const parsed = JSON.parse(json) as { vectors: Record<string, number[]> }
		for (const size of [1, 7, 64, 4096, json.length]) {
			const read = await readSourceVectors(stream(json, size))
			expect(read.words).toEqual(words)
			for (const [index, word] of words.entries()) {
				const row = Array.from(read.vectors.subarray(index * DIMENSIONS, (index + 1) * DIMENSIONS))
				expect(row).toEqual(parsed.vectors[word]!.slice(0, DIMENSIONS).map((value) => Math.fround(value)))
			}
		}
	})

	it('builds the cache table from what it read', async () => {
		const table = buildWordVectorTable(await readSourceVectors(stream(json, 100)), 'fingerprint')
		expect(table.words).toEqual(words)
		expect(table.matrix.length).toBe(words.length * DIMENSIONS)
		expect(table.scales.every((scale) => scale > 0)).toBe(true)
	})

	it('refuses a file whose vectors do not match its words', async () => {
		const broken = json.replace('"cello":[', '"viola":[')
		await expect(readSourceVectors(stream(broken, 512))).rejects.toThrow('the vector of "viola" names index 8')
		await expect(readSourceVectors(stream('{"dimensions":100,"words":[]}', 8))).rejects.toThrow('no "vectors" object')
	})
})
