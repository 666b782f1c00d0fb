import { describe, expect, it } from 'bun:test'
import { candidateCount } from '../../core/search/candidate-count.ts'

describe('candidateCount', () => {
	it('draws five candidates per result from each ranking, at least 50', () => {
		expect(candidateCount(1)).toBe(50)
		expect(candidateCount(10)).toBe(50)
		expect(candidateCount(11)).toBe(55)
		expect(candidateCount(30)).toBe(150)
	})

	it('draws at most 200, whatever the limit', () => {
		expect(candidateCount(40)).toBe(200)
		expect(candidateCount(1000)).toBe(200)
	})
})
