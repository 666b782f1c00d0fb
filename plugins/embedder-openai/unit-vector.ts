/** Scales a vector to length one; null when it has no direction (all zeros) or holds a non-finite value. */
export function toUnitVector(values: ArrayLike<number>): Float32Array | null {
	let squares = 0
	for (let i = 0; i < values.length; i++) squares += values[i]! * values[i]!
	const norm = Math.sqrt(squares)
	if (!(norm > 0) || !Number.isFinite(norm)) return null
	const vector = new Float32Array(values.length)
	for (let i = 0; i < values.length; i++) vector[i] = values[i]! / norm
	return vector
}
