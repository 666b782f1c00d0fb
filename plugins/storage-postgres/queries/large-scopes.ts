import type { Scope } from '../../../core/index.ts'

/** How long a scope found to hold many full-text matches goes straight to the match tiers. */
const REMEMBERED_MS = 10 * 60_000

/** The most scopes remembered; the oldest is forgotten beyond that. */
const CAPACITY = 1_000

/**
 * Search scopes (organization, containers, documents, filters) whose last full-text search matched more rows than
 * one scan ranks (PLAIN_RANK_ROWS), so the next search in them skips that scan. A scope that has grown since is found
 * on its first search; one that has shrunk is tried with the scan again after REMEMBERED_MS.
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

	/**
	 * A full-text search of the scope `key`: the plain scan's rows, unless it matched more than it ranks (null from
	 * `plain`); then the match tiers' rows, and the scope goes straight to them next time.
	 */
	async search<Row>(key: string, plain: () => Promise<Row[] | null>, tiers: () => Promise<Row[]>): Promise<Row[]> {
		if (!this.has(key)) {
			const rows = await plain()
			if (rows) return rows
			this.add(key)
		}
		return tiers()
	}
}

/** What selects a search's rows: everything in the query but the vector, the words and the limit. */
export function scopeKey<Query extends { vector: unknown; terms: unknown; limit: unknown }>(
	scope: Scope,
	query: Query,
): string {
	const { vector: _vector, terms: _terms, limit: _limit, ...selection } = query
	return JSON.stringify([scope.orgId, selection])
}
