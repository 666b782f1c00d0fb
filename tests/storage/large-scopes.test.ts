import { describe, expect, it } from 'bun:test'
import { LargeScopes, scopeKey } from '../../plugins/storage-postgres/queries/large-scopes.ts'

describe('LargeScopes', () => {
	it('remembers a scope for ten minutes', () => {
		const scopes = new LargeScopes()
		scopes.add('a', 0)
		expect(scopes.has('a', 599_999)).toBe(true)
		expect(scopes.has('a', 600_000)).toBe(false)
		expect(scopes.has('b', 0)).toBe(false)
	})

	it('forgets the oldest scope beyond a thousand', () => {
		const scopes = new LargeScopes()
		for (let n = 0; n <= 1_000; n++) scopes.add(`scope ${n}`, 0)
		expect(scopes.has('scope 0', 1)).toBe(false)
		expect(scopes.has('scope 1', 1)).toBe(true)
		expect(scopes.has('scope 1000', 1)).toBe(true)
	})

	it('keys a search by what selects its chunks, not by its words, vector or limit', () => {
		const query = { containerTags: ['a'], vector: new Float32Array([1]), terms: ['x'], limit: 10 }
		const key = scopeKey({ orgId: 'org' }, query)
		expect(scopeKey({ orgId: 'org' }, { ...query, vector: new Float32Array([2]), terms: ['y'], limit: 50 })).toBe(key)
		expect(scopeKey({ orgId: 'other' }, query)).not.toBe(key)
		expect(scopeKey({ orgId: 'org' }, { ...query, containerTags: ['b'] })).not.toBe(key)
		expect(scopeKey({ orgId: 'org' }, { ...query, documentIds: ['d'] })).not.toBe(key)
	})
})
