import type { QueryFilter } from '../domain/filter.ts'
import type { MemoryLink, MemoryRecord, MemoryRelation } from '../domain/memory.ts'
import type { DocumentRecord, Metadata, Scope, StageRecord } from '../domain/types.ts'

/**
 * The memory side of the storage contract. Scoped reads never cross an organization; every search and formation
 * read is also limited to container tags. Formation runs through `form`, one transaction per call, so a document's
 * memories appear all at once or not at all.
 */
export interface MemoryStore {
	/**
	 * Opens a formation transaction for one container: takes the container's formation lock (formations of one
	 * container run one at a time, so two documents never both create "the" first version of a fact), checks the
	 * guard, reads what the probe asks for, lets `decide` turn it into a plan, and applies the plan.
	 * Returns null, changing nothing, when the guard fails (the document changed or is gone).
	 */
	form(
		scope: Scope,
		containerTag: string,
		guard: FormationGuard | null,
		probe: FormationProbe,
		decide: (context: FormationContext) => FormationPlan | Promise<FormationPlan>,
	): Promise<FormationResult | null>

	/**
	 * Several documents of one container in one formation transaction (a dreaming batch): documents whose guard fails
	 * are left out of `admitted`; `decide` returns one plan per admitted document, in the order they should apply.
	 * Returns one result per plan (empty when no guard held).
	 */
	formMany(
		scope: Scope,
		containerTag: string,
		guards: FormationGuard[],
		probe: FormationProbe,
		decide: (context: FormationContext, admitted: Set<string>) => FormationPlan[] | Promise<FormationPlan[]>,
	): Promise<FormationResult[]>

	get(scope: Scope, id: string): Promise<MemoryRecord | null>
	getMany(scope: Scope, ids: string[]): Promise<MemoryRecord[]>
	/**
	 * The memory of the container whose text is exactly `content`: a latest one before an older version, one not
	 * forgotten before a forgotten one, then the most recently updated.
	 */
	findByContent(scope: Scope, containerTag: string, content: string): Promise<MemoryRecord | null>
	/** Latest memories with paging, filters on memory metadata, and total count. Forgotten ones are listed (flagged). */
	list(scope: Scope, query: ListMemoriesQuery): Promise<{ memories: MemoryRecord[]; total: number }>
	/** Every version of the chains the given memories belong to, plus every relation touching them. */
	graph(scope: Scope, ids: string[]): Promise<{ memories: MemoryRecord[]; links: MemoryLink[] }>
	/** Memories formed from a document (any version), oldest first. */
	ofDocument(scope: Scope, documentId: string): Promise<MemoryRecord[]>
	/**
	 * Sets the forgotten flag (with reason and batch) on the given memories of the container that are not forgotten
	 * yet. Returns the ids it changed.
	 */
	forget(
		scope: Scope,
		containerTag: string,
		ids: string[],
		how: { reason: string | null; batchId: string | null },
	): Promise<string[]>

	/**
	 * Embeddings of up to `count` latest, active memories of the containers (any org container when null), spread
	 * over a bounded first slice: what the containers' memories look like, for calibrating similarity and focusing
	 * queries. The same memories give the same sample (pick by a hash of their text, not at random), so a search
	 * scores alike from one call to the next.
	 */
	sampleVectors(scope: Scope, containerTags: string[] | null, count: number): Promise<Float32Array[]>
	/** Candidates by cosine similarity and by full-text rank; see MemorySearchQuery. */
	searchByVector(scope: Scope, query: MemorySearchQuery): Promise<MemoryVectorHit[]>
	searchByText(scope: Scope, query: MemorySearchQuery): Promise<MemoryTextHit[]>

	/**
	 * Documents of the containers (any org container when null) that are done but whose memories are still forming
	 * (dynamic dreaming), up to `limit`: memory search considers their chunks until their memories exist.
	 */
	formingDocuments(scope: Scope, containerTags: string[] | null, limit: number): Promise<string[]>

	/* Dreaming (worker side). */
	/** The document and what formation already did for it, or null when it is gone. */
	formationState(documentId: string): Promise<DocumentFormationState | null>
	/** Containers with documents that are done but whose memories are not formed yet (for the restart sweep). */
	pendingContainers(limit: number): Promise<{ orgId: string; containerTag: string }[]>
	/** Such documents of one container, oldest first. */
	pendingDocuments(orgId: string, containerTag: string, limit: number): Promise<string[]>
	/** How many documents of the container that form memories are still in the pipeline (not done, not failed). */
	inPipeline(orgId: string, containerTag: string): Promise<number>
	/** Seconds since the oldest pending document of the container finished its pipeline, or null when none. */
	pendingAgeSeconds(orgId: string, containerTag: string): Promise<number | null>
	/**
	 * Marks a document's dreaming done without forming memories (nothing to extract, or formation gave up), with an
	 * optional stage record appended. False when its content changed meanwhile.
	 */
	markDreamed(documentId: string, contentHash: string, stage?: StageRecord): Promise<boolean>

	/* Boilerplate (core/memory/boilerplate.ts). */
	/** Replaces the fingerprints of a document's distinct lines (they go with the document). */
	recordLines(documentId: string, fingerprints: string[]): Promise<void>
	/** Those of the fingerprints found in at least `minDocuments` documents of the container. */
	repeatedLines(scope: Scope, containerTag: string, fingerprints: string[], minDocuments: number): Promise<Set<string>>
}

export interface FormationGuard {
	documentId: string
	/** The content the formation worked from. */
	contentHash: string
	/** How many conversation turns were already extracted when the formation read the document. */
	extractedTurns: number
}

export interface FormationProbe {
	/** Candidate vectors: their nearest latest memories are returned per vector. */
	vectors: Float32Array[]
	/** Nearest memories per vector. */
	neighbours: number
	/** Normalised texts: latest memories with the same key are returned. */
	contentKeys: string[]
	/** Latest memories stating something about one of these (subject, attribute) pairs. */
	facts: { subject: string; attribute: string }[]
	/** Memories to load regardless (e.g. the target of an update). */
	ids?: string[]
}

/** What a formation may link to: latest memories of the container that are neither forgotten nor expired. */
export interface FormationContext {
	memories: LinkableMemory[]
	/** Per probe vector, in probe order: nearest memories, most similar first. */
	nearest: { memoryId: string; similarity: number }[][]
}

export interface LinkableMemory {
	id: string
	memory: string
	contentKey: string
	subject: string | null
	attribute: string | null
	value: string | null
	version: number
	/** The chain's first version (the memory's own id for a first version). */
	rootId: string
	isStatic: boolean
	isLatest: boolean
	isForgotten: boolean
	metadata: Record<string, unknown> | null
	forgetAfter: Date | null
	forgetReason: string | null
	eventDates: string[]
}

export interface SourceRef {
	chunkPositions: number[]
	turnIndexes: number[]
}

export interface NewMemory {
	/** Chosen by core, so a plan can link memories it creates. */
	id: string
	memory: string
	contentKey: string
	embedding: Float32Array
	version: number
	parentMemoryId: string | null
	/** The chain's first version (the memory's own id for a first version). */
	rootId: string
	/** False when a later memory of the same plan already replaced it. */
	isLatest: boolean
	isStatic: boolean
	isInference: boolean
	subject: string | null
	attribute: string | null
	value: string | null
	metadata: Record<string, unknown> | null
	eventDates: string[]
	buckets: string[]
	forgetAfter: Date | null
	forgetReason: string | null
	/** Where in the plan's document it came from; null when the plan has no document. */
	source: SourceRef | null
	/** Documents the memory is also sourced from (a new version keeps its parent's sources). */
	inheritSourcesFrom?: string
}

export interface FormationPlan {
	/** The source document of new memories and attachments (null: no document). */
	documentId: string | null
	/** A document to create first, already done (memories written directly through the API). */
	createDocument?: {
		id: string
		containerTag: string
		content: string
		contentHash: string
		title: string | null
		metadata: Metadata | null
	}
	create: NewMemory[]
	/** Existing memories that gain the document as a source (duplicates). Positions merge with earlier ones. */
	attach: ({ memoryId: string } & SourceRef)[]
	/** Memories that stop being latest (a new version replaced them). */
	supersede: string[]
	links: { fromId: string; toId: string; relation: MemoryRelation }[]
	/**
	 * After a full re-extraction, the document's sources on memories this plan neither created nor attached are
	 * dropped; memories left without any source are deleted (their version chains repaired).
	 */
	replaceDocumentSources: boolean
	/** Records the formation on the document: its memories are formed up to this content and these turns. */
	formed?: {
		extractedTurns: number
		turnsHash: string | null
		/** Also set dreamingStatus done (dynamic dreaming; instant dreaming does it with status done). */
		dreamingDone: boolean
		stage?: StageRecord
	}
}

export interface FormationResult {
	created: string[]
	attached: string[]
	superseded: string[]
	/** Memories deleted because the document no longer supports them. */
	released: number
}

export interface DocumentFormationState {
	document: DocumentRecord
	orgId: string
	containerTag: string
	contentHash: string
	/** Content hash the memories were last formed from. */
	formedHash: string | null
	extractedTurns: number
	turnsHash: string | null
}

export type MemorySort = 'createdAt' | 'updatedAt'

export interface ListMemoriesQuery {
	containerTags: string[]
	filters?: QueryFilter
	page: number
	limit: number
	sort: MemorySort
	order: 'asc' | 'desc'
	/** False lists only active memories (not forgotten, not expired); listed (flagged) by default. */
	includeForgotten?: boolean
}

export interface MemorySearchQuery {
	containerTags: string[] | null
	vector: Float32Array
	/** Words of the query; storage builds its own full-text query from them. */
	terms: string[]
	filters?: QueryFilter
	/** Also forgotten and expired memories. */
	includeForgotten: boolean
	/** Also older versions (isLatest=false), so a match on an old version can lift its chain's latest one. */
	includeHistory: boolean
	/** Only these memories (still subject to every other condition). */
	ids?: string[]
	limit: number
}

export interface MemoryVectorHit {
	memoryId: string
	/** Cosine similarity in -1..1. */
	similarity: number
}

export interface MemoryTextHit {
	memoryId: string
	/** Full-text rank normalized to 0..1. */
	rank: number
	/** Share of the query's words (as full-text lexemes) the memory contains, 0..1. */
	coverage: number
}
