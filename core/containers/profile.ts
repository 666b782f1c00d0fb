import type { QueryFilter } from '../domain/filter.ts'
import type { Scope } from '../domain/types.ts'
import { badRequest } from '../errors.ts'
import type { ProfileFact } from '../plugins/container-storage.ts'
import type { Storage } from '../plugins/storage.ts'
import type { MemorySearch, SearchHit } from '../search/memory-search.ts'
import { effectiveBuckets } from './buckets.ts'

export const PROFILE_SECTIONS = ['static', 'dynamic', 'buckets'] as const
export type ProfileSection = (typeof PROFILE_SECTIONS)[number]

/** Caps: a profile stays small and fast whatever the container holds (newest first in each list). */
export const PROFILE_LIMITS = { static: 50, dynamic: 20, perBucket: 20, searchResults: 10 } as const
const DEFAULT_THRESHOLD = 0.6

export interface ProfileRequest {
	containerTag: string
	q?: string
	threshold?: number
	filters?: QueryFilter
	include?: ProfileSection[]
	buckets?: string[]
}

export interface ProfileFacts {
	static?: ProfileFact[]
	dynamic?: ProfileFact[]
	buckets?: Record<string, ProfileFact[]>
}

export interface ProfileAnswer {
	profile: { static?: string[]; dynamic?: string[]; buckets?: Record<string, string[]> }
	search?: { hits: SearchHit[]; timing: number }
}

/**
 * An entity's profile: `static` = its latest unforgotten static memories (durable facts), `dynamic` = its most recent
 * other memories created within `dynamicDays`, `buckets` = per bucket key the memories sorted into it. One indexed
 * statement reads all sections; `q` also runs a memory search over the container.
 */
export function createProfileService(deps: { storage: Storage; memorySearch: MemorySearch; dynamicDays: number }) {
	const { storage, memorySearch } = deps
	return {
		/** The profile as texts (v4), with the search `q` asks for. */
		async profile(scope: Scope, request: ProfileRequest): Promise<ProfileAnswer> {
			const [facts, search] = await Promise.all([
				readFacts(scope, request),
				request.q === undefined ? undefined : runSearch(scope, request),
			])
			const texts = (list: ProfileFact[]) => list.map((fact) => fact.memory)
			const profile: ProfileAnswer['profile'] = {}
			if (facts.static) profile.static = texts(facts.static)
			if (facts.dynamic) profile.dynamic = texts(facts.dynamic)
			if (facts.buckets) {
				profile.buckets = Object.fromEntries(Object.entries(facts.buckets).map(([key, list]) => [key, texts(list)]))
			}
			return { profile, ...(search ? { search } : {}) }
		},

		/** The profile's sections as memories with their ids (v5). */
		facts: readFacts,
	}

	async function readFacts(scope: Scope, request: Omit<ProfileRequest, 'q' | 'threshold'>): Promise<ProfileFacts> {
		const include = new Set(request.include ?? PROFILE_SECTIONS)
		let keys: string[] = []
		if (include.has('buckets') || request.buckets) {
			const defined = (await effectiveBuckets(storage, scope, request.containerTag)).map((b) => b.key)
			const unknown = (request.buckets ?? []).find((key) => !defined.includes(key))
			if (unknown !== undefined) {
				throw badRequest(
					`buckets: "${unknown}" is not a bucket of this container (defined: ${defined.join(', ') || 'none'})`,
				)
			}
			keys = include.has('buckets') ? (request.buckets ?? defined) : []
		}
		const rows = await storage.containers.profile(scope, request.containerTag, {
			filters: request.filters,
			staticLimit: include.has('static') ? PROFILE_LIMITS.static : 0,
			dynamicLimit: include.has('dynamic') ? PROFILE_LIMITS.dynamic : 0,
			dynamicDays: deps.dynamicDays,
			buckets: [...new Set(keys)],
			bucketLimit: PROFILE_LIMITS.perBucket,
		})
		const facts: ProfileFacts = {}
		if (include.has('static')) facts.static = rows.static
		if (include.has('dynamic')) facts.dynamic = rows.dynamic
		if (include.has('buckets')) facts.buckets = Object.fromEntries(keys.map((key) => [key, rows.buckets[key] ?? []]))
		return facts
	}

	async function runSearch(scope: Scope, request: ProfileRequest) {
		const started = performance.now()
		const hits = await memorySearch(scope, {
			q: request.q!,
			containerTags: [request.containerTag],
			filters: request.filters,
			threshold: request.threshold ?? DEFAULT_THRESHOLD,
			limit: PROFILE_LIMITS.searchResults,
			mode: 'memories',
			include: { documents: false, summaries: false, relatedMemories: false, forgottenMemories: false, chunks: false },
			rerank: false,
		})
		return { hits, timing: Math.round(performance.now() - started) }
	}
}

export type ProfileService = ReturnType<typeof createProfileService>
