import { describe, expect, it } from 'bun:test'
import { inGroups, MAX_FORMATION_CANDIDATES } from '../../core/memory/form-document.ts'

describe('inGroups', () => {
	const sizes = (groups: number[][]) => groups.map((group) => group.reduce((sum, n) => sum + n, 0))

	it('keeps the order and puts no more candidates in a group than the bound', () => {
		const counts = Array.from({ length: 40 }, (_, i) => 10 + (i % 7) * 20)
		const groups = inGroups(counts, (n) => n)
		expect(groups.flat()).toEqual(counts)
		for (const size of sizes(groups)) expect(size).toBeLessThanOrEqual(MAX_FORMATION_CANDIDATES)
		// Groups are filled: each next item would have crossed the bound.
		for (const [i, group] of groups.slice(0, -1).entries()) {
			expect(sizes([group])[0]! + groups[i + 1]![0]!).toBeGreaterThan(MAX_FORMATION_CANDIDATES)
		}
	})

	it('forms a document with more candidates than the bound alone, and small ones together', () => {
		const big = MAX_FORMATION_CANDIDATES + 50
		expect(inGroups([5, big, 5, 5], (n) => n)).toEqual([[5], [big], [5, 5]])
		expect(inGroups([], (n: number) => n)).toEqual([])
	})
})
