import type { ChunkSearchQuery, Scope } from '../../../core/index.ts'

/** How long a scope found to hold many full-text matches goes straight to the match tiers. */
const REMEMBERED_MS = 10 * 60_000

/** The most scopes remembered; the oldest is forgotten beyond that. */
const CAPACITY = 1_000

/**
 * Search scopes (organization, containers, documents, filters) whose last full-text search matched more chunks than
 * one scan ranks, so the next search in them skips that scan. A scope that has grown since is found on its first
 * search; one that has shrunk is tried with the scan again after REMEMBERED_MS.
 */
export class LargeScopes {
	private readonly until = new Map<string, number>()

	has(key: string, now = Date.now()): boolean {
		const until = this.until.get(key)
		if (until === undefined) return false
		if (until > now) return true
		this.until.delete(key)
		return false
	}

	add(key: string, now = Date.now()): void {
		this.until.delete(key)
		this.until.set(key, now + REMEMBERED_MS)
		if (this.until.size > CAPACITY) this.until.delete(this.until.keys().next().value!)
	}
}

/** What selects a search's chunks: everything in the query but the vector, the words and the limit. */
export function scopeKey(scope: Scope, query: ChunkSearchQuery): string {
	const { vector: _vector, terms: _terms, limit: _limit, ...selection } = query
	return JSON.stringify([scope.orgId, selection])
}
