import type { Scope } from '../domain/types.ts'
import type { BucketDefinition } from '../plugins/container-storage.ts'
import type { EmbedderPlugin } from '../plugins/contract.ts'
import type { Storage } from '../plugins/storage.ts'

/**
 * The buckets that apply to a container: the organization's (settings `profileBuckets`) plus the tag's own. A tag
 * cannot remove an organization bucket; a tag bucket with the same key replaces its description.
 */
export async function effectiveBuckets(storage: Storage, scope: Scope, tag: string): Promise<BucketDefinition[]> {
	const [settings, own] = await Promise.all([storage.settings.get(scope.orgId), storage.containers.get(scope, tag)])
	return mergeBuckets(orgBuckets(settings), own?.profileBuckets ?? [])
}

export function orgBuckets(settings: Record<string, unknown>): BucketDefinition[] {
	const list = Array.isArray(settings.profileBuckets) ? (settings.profileBuckets as Partial<BucketDefinition>[]) : []
	return list.flatMap((b) => (typeof b.key === 'string' ? [{ key: b.key, description: b.description ?? '' }] : []))
}

export function mergeBuckets(org: BucketDefinition[], tag: BucketDefinition[]): BucketDefinition[] {
	const merged = new Map(org.map((b) => [b.key, b]))
	for (const bucket of tag) merged.set(bucket.key, { key: bucket.key, description: bucket.description ?? '' })
	return [...merged.values()]
}

/**
 * Cosine similarity a memory needs to its bucket's "key: description" vector, and how close to its best bucket it
 * must be. Tuned with the local embedder on LoCoMo-style statements against descriptions of 5-10 words: a statement
 * scores about 0.35-0.5 with its bucket and 0-0.3 with the others, so only the best bucket (or a near tie) passes.
 */
export const BUCKET_SIMILARITY = 0.38
const BEST_MARGIN = 0.05
const CACHE_SIZE = 64
const STOPWORDS = new Set(
	(
		'about above after again also any are because been before being between both but can could did does doing down ' +
		'during each few from further had has have having her here hers him his how into its itself just more most ' +
		'other ours over own same she should some such than that the their theirs them then there these they this ' +
		'those through under until very was were what when where which while who whom why will with would you your ' +
		'things thing stuff person people user users someone something related relating including include includes ' +
		'anything everything like likes information info details memories memory facts fact ' +
		'and the for are was has had her his him she our its not all can out who how why new one two too etc'
	).split(' '),
)

export interface PreparedBuckets {
	definitions: BucketDefinition[]
	vectors: Float32Array[]
	keywords: Set<string>[]
}

const stem = (word: string) => word.replace(/(?:ies)$/, 'y').replace(/(?:es|s)$/, '')

function words(text: string): string[] {
	return (text.toLowerCase().match(/[a-z][a-z']+/g) ?? []).map((w) => w.replace(/'s?$/, ''))
}

export function keywordsOf(bucket: BucketDefinition): Set<string> {
	const all = [...bucket.key.split(/[-_]/), ...words(bucket.description)]
	return new Set(all.filter((w) => w.length >= 3 && !STOPWORDS.has(w)).map(stem))
}

/**
 * Offline bucket sorting: a memory belongs to each bucket whose "key: description" embedding it is similar enough
 * to, or whose keywords (words of the key and description) it contains. The bucket vectors are embedded once per
 * definition set and cached.
 */
export function createBucketSorter(embedder: EmbedderPlugin) {
	const cache = new Map<string, Promise<PreparedBuckets>>()

	return {
		prepare(definitions: BucketDefinition[]): Promise<PreparedBuckets> {
			const id = JSON.stringify(definitions.map((b) => [b.key, b.description]))
			let prepared = cache.get(id)
			if (!prepared) {
				prepared = (async () => ({
					definitions,
					vectors:
						definitions.length === 0
							? []
							: await embedder.embed(
									definitions.map((b) => `${b.key.replace(/[-_]/g, ' ')}: ${b.description}`),
									'document',
								),
					keywords: definitions.map(keywordsOf),
				}))()
				prepared.catch(() => cache.delete(id))
				if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!)
				cache.set(id, prepared)
			}
			return prepared
		},
	}
}

export type BucketSorter = ReturnType<typeof createBucketSorter>

/** Bucket keys for a memory, given its similarity to each prepared bucket vector. */
export function assignBuckets(prepared: PreparedBuckets, text: string, similarities: number[]): string[] {
	const memoryWords = new Set(words(text).map(stem))
	const best = Math.max(0, ...similarities)
	return prepared.definitions.flatMap((bucket, i) => {
		const score = similarities[i] ?? 0
		const similar = score >= BUCKET_SIMILARITY && score >= best - BEST_MARGIN
		const keyword = [...prepared.keywords[i]!].some((w) => memoryWords.has(w))
		return similar || keyword ? [bucket.key] : []
	})
}

export function cosine(a: Float32Array, b: Float32Array): number {
	let dot = 0
	let na = 0
	let nb = 0
	for (let i = 0; i < a.length; i++) {
		dot += a[i]! * b[i]!
		na += a[i]! * a[i]!
		nb += b[i]! * b[i]!
	}
	return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

const sorters = new WeakMap<EmbedderPlugin, BucketSorter>()

/** One sorter (and bucket-vector cache) per embedder, shared by formation and re-sorting. */
export function sorterFor(embedder: EmbedderPlugin): BucketSorter {
	let sorter = sorters.get(embedder)
	if (!sorter) {
		sorter = createBucketSorter(embedder)
		sorters.set(embedder, sorter)
	}
	return sorter
}

export interface ContainerContext {
	entityContext: string | null
	buckets: BucketDefinition[]
}

/** What extraction needs from a container's settings: its entity context and effective buckets. */
export async function containerContext(storage: Storage, scope: Scope, tag: string): Promise<ContainerContext> {
	const [settings, own] = await Promise.all([storage.settings.get(scope.orgId), storage.containers.get(scope, tag)])
	return {
		entityContext: own?.entityContext ?? null,
		buckets: mergeBuckets(orgBuckets(settings), own?.profileBuckets ?? []),
	}
}

/**
 * Sorts formed statements into buckets: keys an extractor gave are kept when defined; statements without any are
 * sorted offline by similarity and keywords.
 */
export async function sortCandidates<T extends { content: string; vector: Float32Array; buckets: string[] }>(
	embedder: EmbedderPlugin,
	definitions: BucketDefinition[],
	candidates: T[],
): Promise<T[]> {
	if (definitions.length === 0) return candidates.map((c) => ({ ...c, buckets: [] }))
	const prepared = await sorterFor(embedder).prepare(definitions)
	const known = new Set(definitions.map((b) => b.key))
	return candidates.map((candidate) => {
		const given = candidate.buckets.filter((key) => known.has(key))
		if (given.length > 0) return { ...candidate, buckets: given }
		const similarities = prepared.vectors.map((vector) => cosine(candidate.vector, vector))
		return { ...candidate, buckets: assignBuckets(prepared, candidate.content, similarities) }
	})
}
