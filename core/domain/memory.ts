/** Memory entries and their graph. Times are Date objects; routes serialise them. */

export const MEMORY_RELATIONS = ['updates', 'extends', 'derives'] as const
/**
 * `updates`: a newer version of the same fact (same subject and attribute, changed value); `extends`: adds detail to
 * a fact without replacing it; `derives`: an inference drawn from several memories.
 */
export type MemoryRelation = (typeof MEMORY_RELATIONS)[number]

export interface MemoryRecord {
	id: string
	orgId: string
	containerTag: string
	memory: string
	version: number
	isLatest: boolean
	/** The version this one updates; null for a first version. */
	parentMemoryId: string | null
	/** The first version of the chain; null for a first version itself. */
	rootMemoryId: string | null
	isStatic: boolean
	/** Explicitly forgotten (a flag: the row stays). Expiry is `forgetAfter`. */
	isForgotten: boolean
	forgetAfter: Date | null
	forgetReason: string | null
	forgetBatchId: string | null
	/** Inferred from other memories (`derives`) rather than stated. */
	isInference: boolean
	subject: string | null
	attribute: string | null
	value: string | null
	metadata: Record<string, unknown> | null
	/** ISO dates the memory refers to. */
	eventDates: string[]
	/** Keys of the profile buckets the memory was sorted into. */
	buckets: string[]
	/** The documents the memory was formed from, oldest link first. */
	documentIds: string[]
	createdAt: Date
	updatedAt: Date
}

export interface MemoryLink {
	fromId: string
	toId: string
	relation: MemoryRelation
}
