import type { QueryFilter } from '../domain/filter.ts'
import type { Scope } from '../domain/types.ts'

export interface BucketDefinition {
	key: string
	description: string
}

/** A container tag's own settings (the `container_tags` row). */
export interface ContainerTagSettings {
	containerTag: string
	name: string | null
	entityContext: string | null
	/** The tag's own buckets, added on top of the organization's. */
	profileBuckets: BucketDefinition[]
	createdAt: string
	updatedAt: string
}

export interface ContainerTagPatch {
	name?: string | null
	entityContext?: string | null
	profileBuckets?: BucketDefinition[]
}

/** A tag as listed: its settings (when it has any) merged with what it holds. */
export interface ContainerTagSummary {
	containerTag: string
	name: string | null
	createdAt: string
	updatedAt: string
	documentCount: number
	/** Latest, not forgotten memories. */
	memoryCount: number
	lastActivityAt: string | null
}

export interface ProfileQuery {
	filters?: QueryFilter
	/** 0 skips the section. */
	staticLimit: number
	dynamicLimit: number
	/** Dynamic memories are those created within this many days. */
	dynamicDays: number
	/** Bucket keys to fill (empty: none). */
	buckets: string[]
	bucketLimit: number
}

/** One memory of a profile section: its id and text. */
export interface ProfileFact {
	id: string
	memory: string
}

export interface ProfileRows {
	static: ProfileFact[]
	dynamic: ProfileFact[]
	buckets: Record<string, ProfileFact[]>
}

export type MergeStatus = 'queued' | 'running' | 'done' | 'failed'

export interface MergeRecord {
	id: string
	status: MergeStatus
	targetTag: string
	sourceTags: string[]
	documentsMoved: number
	memoriesMoved: number
	/** Source documents whose customId was already used in the target (or an earlier source): their customId is dropped. */
	customIdConflicts: number
	error: string | null
	createdAt: string
	updatedAt: string
	finishedAt: string | null
}

/** A latest memory with its cosine similarity to each bucket vector given, for (re)sorting into buckets. */
export interface BucketProbeRow {
	id: string
	memory: string
	similarities: number[]
}

/** Container tags: settings, counts, deletion, merges, profiles and bucket assignment (storage side). */
export interface ContainerStore {
	list(scope: Scope): Promise<ContainerTagSummary[]>
	/** The settings row, or null when the tag has none. */
	get(scope: Scope, tag: string): Promise<ContainerTagSettings | null>
	/** Tags of the list that hold documents or memories or have settings. */
	existing(scope: Scope, tags: string[]): Promise<string[]>
	/** Creates or updates the settings row (only the given fields change). */
	put(scope: Scope, tag: string, patch: ContainerTagPatch): Promise<ContainerTagSettings>
	/**
	 * Removes the tag's settings row and every memory left in the pool (documents are deleted by the caller first, so
	 * their files leave the file store). Returns how many latest, not forgotten memories the pool held before.
	 */
	deleteRest(scope: Scope, tag: string): Promise<{ settingsRemoved: boolean; memoriesRemoved: number }>
	/** Latest, not forgotten memories of the pool. */
	countMemories(scope: Scope, tag: string): Promise<number>
	/** Organization reset: every memory row and tag settings row of the organization. */
	clearOrg(orgId: string): Promise<{ memoryRows: number; tags: number }>
	profile(scope: Scope, tag: string, query: ProfileQuery): Promise<ProfileRows>
	/** Tags with memories (for re-sorting after the organization's buckets changed). */
	tagsWithMemories(scope: Scope): Promise<string[]>
	/** A page of latest memories of the tag after `afterId` (by id), with their similarity to each vector. */
	bucketProbe(
		scope: Scope,
		tag: string,
		vectors: Float32Array[],
		afterId: string | null,
		limit: number,
	): Promise<BucketProbeRow[]>
	setBuckets(scope: Scope, assignments: { id: string; buckets: string[] }[]): Promise<void>
	createMerge(scope: Scope, merge: { id: string; targetTag: string; sourceTags: string[] }): Promise<MergeRecord>
	getMerge(scope: Scope, id: string): Promise<MergeRecord | null>
	/** Runs a queued merge in one transaction and records its outcome. */
	runMerge(orgId: string, id: string): Promise<MergeRecord | null>
}
