/** From this many sampled memories on, the container's common direction is taken out in full. */
const FULL_WEIGHT_SAMPLE = 30

/**
 * The query vector without what the searched container's memories have in common, so that what sets a memory apart
 * decides its rank: in a chat nearly every memory names its speakers, and a word-vector embedding leans on rare words
 * like names. The component along the mean of a sample of the container's memories is taken out of the query (the
 * container-level counterpart of SIF's common-component removal); names still count through the full-text side.
 * Measurements: docs/search-scoring.md.
 *
 * The mean of a few memories is mostly those memories themselves, so a small sample takes out proportionally less
 * (a third at 10 memories): a container of two facts keeps its query as it is. Without a sample, or when the query
 * is all common direction, the query comes back unchanged.
 */
export function focusOnContainer(query: Float32Array, sample: Float32Array[]): Float32Array {
	if (sample.length === 0) return query
	const mean = new Float64Array(query.length)
	for (const vector of sample) for (let i = 0; i < mean.length; i++) mean[i]! += vector[i] ?? 0
	const length = Math.hypot(...mean)
	if (!(length > 0)) return query
	let along = 0
	for (let i = 0; i < mean.length; i++) along += query[i]! * (mean[i]! / length)
	const weight = Math.min(1, sample.length / FULL_WEIGHT_SAMPLE) * along
	const focused = Float32Array.from(query, (value, i) => value - (weight * mean[i]!) / length)
	const focusedLength = Math.hypot(...focused)
	if (!(focusedLength > 1e-6)) return query
	for (let i = 0; i < focused.length; i++) focused[i]! /= focusedLength
	return focused
}
