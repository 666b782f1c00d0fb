import { describe, expect, it } from 'bun:test'
import { focusOnContainer } from '../../core/search/container-focus.ts'

const DIMENSIONS = 8

function unit(...entries: [number, number][]): Float32Array {
	const vector = new Float32Array(DIMENSIONS)
	for (const [index, value] of entries) vector[index] = value
	const length = Math.hypot(...vector)
	return vector.map((value) => value / length)
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0)

/** Memories that all lean on dimension 0 (a name every memory shares), each with a topic of its own. */
function containerSample(count: number): Float32Array[] {
	return Array.from({ length: count }, (_, i) => unit([0, 3], [1 + (i % (DIMENSIONS - 1)), 1]))
}

function meanDirection(sample: Float32Array[]): Float32Array {
	const sum = new Float32Array(DIMENSIONS)
	for (const vector of sample) for (let i = 0; i < DIMENSIONS; i++) sum[i]! += vector[i]!
	const length = Math.hypot(...sum)
	return sum.map((value) => value / length)
}

describe('focusOnContainer', () => {
	const query = unit([0, 3], [3, 1])

	it('leaves the query as it is without a sample', () => {
		expect(focusOnContainer(query, [])).toBe(query)
	})

	it('takes the direction all sampled memories share out of the query, and returns a unit vector', () => {
		const sample = containerSample(40)
		const focused = focusOnContainer(query, sample)
		expect(Math.abs(dot(focused, meanDirection(sample)))).toBeLessThan(1e-6)
		expect(Math.hypot(...focused)).toBeCloseTo(1, 6)
	})

	it('ranks a memory by its own topic rather than by the name all memories share', () => {
		const sample = containerSample(40)
		const vague = unit([0, 1], [5, 0.05])
		const onTopic = unit([0, 1], [3, 1])
		expect(dot(query, vague)).toBeGreaterThan(dot(query, onTopic))
		const focused = focusOnContainer(query, sample)
		expect(dot(focused, onTopic)).toBeGreaterThan(dot(focused, vague))
	})

	it('takes out proportionally less for a small sample, so a container of a few facts keeps its query', () => {
		const sample = containerSample(3)
		const mean = meanDirection(sample)
		const focused = focusOnContainer(query, sample)
		// A tenth of the component along the mean is taken out (3 of the 30 memories that take it all out).
		const kept = query.map((value, i) => value - 0.1 * dot(query, mean) * mean[i]!)
		const length = Math.hypot(...kept)
		for (let i = 0; i < DIMENSIONS; i++) expect(focused[i]!).toBeCloseTo(kept[i]! / length, 5)
	})
})
