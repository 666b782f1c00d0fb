import { describe, expect, it } from 'bun:test'
import { similarity } from '../../core/search/calibration.ts'

describe('similarity', () => {
	const baseline = { median: 0.3, scale: 0.1 }

	it('puts a result two spreads above the unrelated median at the default threshold of 0.6', () => {
		expect(similarity(baseline, 0.5)).toBeCloseTo(0.6, 6)
		expect(similarity(baseline, 0.3)).toBeLessThan(0.1)
		expect(similarity(baseline, 0.7)).toBeGreaterThan(0.9)
	})

	it('reads a text holding every word of the query as relevant whatever its vector says', () => {
		expect(similarity(baseline, 0.1, 1)).toBeGreaterThanOrEqual(0.75)
		expect(similarity(baseline, 0.1, 1)).toBeGreaterThan(similarity(baseline, 0.5, 0))
	})

	it('adds shared words to semantic evidence like an independent chance, staying within 0..1', () => {
		const semantic = similarity(baseline, 0.5)
		expect(similarity(baseline, 0.5, 1 / 3)).toBeCloseTo(1 - (1 - semantic) * 0.75, 6)
		expect(similarity(baseline, 2, 1)).toBeLessThanOrEqual(1)
		expect(similarity(baseline, -1, 2)).toBeLessThanOrEqual(1)
		expect(similarity(baseline, -1, -1)).toBeGreaterThanOrEqual(0)
	})
})
