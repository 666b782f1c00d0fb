import type { EmbedderPlugin } from '../plugins/contract.ts'
import type { MetaStore } from '../plugins/storage.ts'
import { REFERENCE_STATEMENTS } from './reference-statements.ts'

/**
 * Similarity in 0..1 that means the same whatever the embedder, so the API's default `threshold` of 0.6 (which the
 * published v5 client always sends) keeps relevant results and drops unrelated ones.
 *
 * Raw cosines do not transfer between vector spaces: with the local word-vector model an unrelated memory sits
 * around 0.1-0.45 and a relevant one around 0.55-0.8; OpenAI's models put unrelated text near 0.1 and relevant text
 * at 0.4-0.6; others (nomic) put everything above 0.4. So each query is measured against what "unrelated" looks like
 * for it, in this space and in this container: 60 fixed everyday statements (reference-statements.ts) plus up to 60
 * memories of the searched containers. The median and the spread (MAD) of the query's cosines to them give a
 * z-score for each result:
 *
 *   z        = (cosine - median) / (1.4826 · MAD)
 *   semantic = logistic(1.5 · (z - 1.73))          z = 2 → 0.6, z = 3.5 → 0.93, z = 0.5 → 0.14
 *   lexical  = share of the query's words (full-text lexemes) the text contains
 *   similarity = 1 - (1 - semantic) · (1 - 0.75 · lexical)
 *
 * Median and MAD rather than mean and deviation, so a few statements close to the query do not raise the bar. The
 * container's own memories make the bar fit the container: when every memory says "The user ...", sharing "user"
 * with the query is no evidence. Memory search scores the query without the container's common direction
 * (container-focus.ts), and so does bench/similarity.ts.
 *
 * The two kinds of evidence combine like independent chances (a noisy OR). Lexical evidence weighs 0.75: a text
 * holding every word of the query reads as relevant (0.75 or more) whatever its vector says, one holding a third of
 * them gets a quarter of the way. Word vectors of 100 dimensions miss much that shared words catch: on LoCoMo
 * (bench/locomo.ts), raising the weight from 0.3 to 0.75 took hybrid evidence found within 1,000 words from 0.871 to
 * 0.909, memories from 0.830 to 0.844 and documents from 0.834 to 0.881 (0.6: 0.899; 0.9 and 1.0: 0.909 and 0.911).
 *
 * Measured with the local embedder (bench/similarity.ts):
 * - LoCoMo (3 conversations; 385 questions against the session observations of their conversation): at 0.6, 65 % of
 *   the evidence observations pass and 5.9 % of the others (with lexical weight 0.3: 59 % and 4.5-4.7 %; raw cosine at
 *   0.55: 49 % and 4.7 %); at 0.4, 77 % and 16 %. Word vectors cannot separate that set much better; the ranking and
 *   `limit` decide what comes first.
 * - hand-made examples: "where does Alex live" → "Alex lives in Boston" 0.92; "what milk does Marie like" → "Marie
 *   prefers oat milk in her cappuccino" 0.99; "where do I live" → "The user lives in Boston" 0.94; "weather tomorrow"
 *   and "quantum chromodynamics lecture notes" stay under 0.35 against everything. The model's limits show too:
 *   "what is Alex's job" finds Alex's other facts (0.93) before "Alex works as a nurse" (0.64).
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
