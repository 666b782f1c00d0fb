import type { EmbedderPlugin } from '../plugins/contract.ts'
import type { MetaStore } from '../plugins/storage.ts'
import { REFERENCE_STATEMENTS } from './reference-statements.ts'

/**
 * Similarity in 0..1 that means the same whatever the embedder, so the API's default `threshold` of 0.6 (which the
 * published v5 client always sends) keeps relevant results and drops unrelated ones. Raw cosines do not transfer
 * between vector spaces, so each query is measured against what "unrelated" looks like for it: fixed everyday
 * statements (reference-statements.ts) plus memories of the searched containers.
 *
 *   z        = (cosine - median) / (1.4826 · MAD)
 *   semantic = logistic(1.5 · (z - 1.73))          z = 2 → 0.6, z = 3.5 → 0.93, z = 0.5 → 0.14
 *   lexical  = share of the query's words (full-text lexemes) the text contains
 *   similarity = 1 - (1 - semantic) · (1 - 0.75 · lexical)
 *
 * Median and MAD, so a few statements close to the query do not raise the bar; the container's memories in the
 * sample, so a word every memory shares is no evidence. The two kinds of evidence combine like independent chances;
 * shared words weigh 0.75 because 100-dimension word vectors miss much that they catch. Why these numbers, with the
 * measurements: docs/search-scoring.md.
 */
const SLOPE = 1.5
const Z_AT_THRESHOLD = 2
const Z_MIDPOINT = Z_AT_THRESHOLD - Math.log(1.5) / SLOPE
const LEXICAL_WEIGHT = 0.75
/** A floor on the spread, so a space with almost identical reference cosines cannot blow z-scores up. */
const MIN_SCALE = 0.02

export interface QueryBaseline {
	median: number
	scale: number
}

export interface Calibration {
	/**
	 * The query's "unrelated" baseline against the reference statements and `sample` (vectors of memories of the
	 * searched containers); cheap (about 120 dot products) once the reference vectors are known.
	 */
	baseline(queryVector: Float32Array, sample?: Float32Array[]): Promise<QueryBaseline>
}

export function similarity(baseline: QueryBaseline, cosine: number, coverage = 0): number {
	const z = (cosine - baseline.median) / baseline.scale
	const semantic = 1 / (1 + Math.exp(-SLOPE * (z - Z_MIDPOINT)))
	const lexical = Math.max(0, Math.min(1, coverage))
	return clamp(1 - (1 - semantic) * (1 - LEXICAL_WEIGHT * lexical))
}

/**
 * The reference vectors are embedded once per process, and kept in the store (per vector space) so a paid or slow
 * embedder is not asked again at every start.
 */
export function createCalibration(embedder: EmbedderPlugin, meta: MetaStore | null): Calibration {
	let reference: Promise<Float32Array[]> | null = null
	const key = `search-reference:${embedder.space.id}:${hashOf(REFERENCE_STATEMENTS.join('\n'))}`

	async function load(): Promise<Float32Array[]> {
		const stored = meta ? await meta.get<number[][]>(key).catch(() => null) : null
		if (stored && stored.length === REFERENCE_STATEMENTS.length) return stored.map((v) => Float32Array.from(v))
		const vectors = await embedder.embed(REFERENCE_STATEMENTS, 'document')
		await meta
			?.set(
				key,
				vectors.map((v) => Array.from(v)),
			)
			.catch(() => {})
		return vectors
	}

	return {
		async baseline(queryVector, sample = []) {
			reference ??= load().catch((error) => {
				reference = null
				throw error
			})
			const cosines = [...(await reference), ...sample].map((vector) => dot(queryVector, vector))
			const median = medianOf(cosines)
			const mad = medianOf(cosines.map((value) => Math.abs(value - median)))
			return { median, scale: Math.max(MIN_SCALE, 1.4826 * mad) }
		},
	}
}

function dot(a: Float32Array, b: Float32Array): number {
	let sum = 0
	for (let i = 0; i < a.length; i++) sum += a[i]! * (b[i] ?? 0)
	return sum
}

function medianOf(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b)
	const middle = sorted.length >> 1
	return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function clamp(value: number): number {
	return Math.max(0, Math.min(1, value))
}

function hashOf(text: string): string {
	return new Bun.CryptoHasher('sha256').update(text).digest('hex').slice(0, 12)
}
