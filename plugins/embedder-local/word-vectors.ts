import type { WordVectorTable } from './cache-format.ts'
import { hashedTrigramVector } from './fallback-vector.ts'
import { sifWeight } from './method.ts'
import { tokenize } from './tokenize.ts'

/** The loaded model: looks words up and turns texts into unit-length sentence vectors. */
export class WordVectors {
	readonly dimensions: number
	readonly wordCount: number
	private readonly index: Map<string, number>
	private readonly matrix: Int8Array
	/** The row's quantisation scale times the word's SIF weight: one multiply per word at embedding time. */
	private readonly rowFactors: Float32Array
	private readonly sum: Float64Array
	private readonly isKnown = (word: string) => this.index.has(word)

	constructor(table: WordVectorTable) {
		this.dimensions = table.dimensions
		this.wordCount = table.words.length
		this.matrix = table.matrix
		this.index = new Map()
		this.rowFactors = new Float32Array(this.wordCount)
		for (let rank = 0; rank < this.wordCount; rank++) {
			this.index.set(table.words[rank]!, rank)
			this.rowFactors[rank] = table.scales[rank]! * sifWeight(rank, this.wordCount)
		}
		this.sum = new Float64Array(this.dimensions)
	}

	/** SIF-weighted sum of the known words' vectors (the common component is already removed from them), normalized. */
	sentenceVector(text: string): Float32Array {
		const { dimensions, sum, matrix } = this
		sum.fill(0)
		let known = 0
		for (const word of tokenize(text, this.isKnown)) {
			const rank = this.index.get(word)
			if (rank === undefined) continue
			const factor = this.rowFactors[rank]!
			const base = rank * dimensions
			for (let d = 0; d < dimensions; d++) sum[d]! += matrix[base + d]! * factor
			known++
		}
		let squares = 0
		for (let d = 0; d < dimensions; d++) squares += sum[d]! * sum[d]!
		const norm = Math.sqrt(squares)
		if (known === 0 || !(norm > 0) || !Number.isFinite(norm)) return hashedTrigramVector(text, dimensions)
		const vector = new Float32Array(dimensions)
		for (let d = 0; d < dimensions; d++) vector[d] = sum[d]! / norm
		return vector
	}
}
