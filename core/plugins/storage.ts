import type { QueryFilter } from '../domain/filter.ts'
import type {
	ApiKey,
	ChunkRecord,
	DocumentHeader,
	DocumentRecord,
	DocumentStatus,
	DocumentType,
	Dreaming,
	DreamingStatus,
	Metadata,
	Org,
	Scope,
	StageRecord,
	StoredFile,
	TaskType,
} from '../domain/types.ts'
import type { ConnectionStore } from './connection-storage.ts'
import type { ContainerStore } from './container-storage.ts'
import type { FeedbackStore } from './feedback-storage.ts'
import type { MemoryStore } from './memory-storage.ts'

/**
 * The storage contract. Every method that reads or writes user data takes a Scope (the caller's organization);
 * an implementation must never return or touch rows of another organization, whatever ids it is given.
 * Pipeline methods (by document id only) are called by workers on ids they got from a scoped job.
 */
export interface Storage {
	orgs: OrgStore
	keys: KeyStore
	documents: DocumentStore
	chunks: ChunkStore
	search: SearchStore
	meta: MetaStore
	/** Memory entries, their sources and relations (core/plugins/memory-storage.ts). */
	memories: MemoryStore
	settings: SettingsStore
	usage: UsageStore
	/** Container tags: settings, counts, deletes, merges, profiles (core/plugins/container-storage.ts). */
	containers: ContainerStore
	/** Connections to providers: tokens (sealed), cursors, imported items, sync runs, webhook subscriptions. */
	connections: ConnectionStore
	/** Feedback reports sent through v5 (core/plugins/feedback-storage.ts). */
	feedback: FeedbackStore
	/** How the durable job queue reaches the same database (pg-boss). */
	jobDatabase(): JobDatabase
	/**
	 * True when one connection runs every statement (an embedded database): a search waits for any transaction in
	 * progress, so background transactions are kept short while searches come in.
	 */
	oneConnection?: boolean
}

export type JobDatabase =
	| { kind: 'connection-string'; connectionString: string; schema?: string }
	| {
			kind: 'executor'
			executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>
			listen?(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>
			/** The raw embedded database, for adapters that take it whole (pg-boss `fromPglite`). */
			raw?: unknown
	  }

export interface OrgStore {
	create(name: string): Promise<Org>
	byName(name: string): Promise<Org | null>
	byId(id: string): Promise<Org | null>
	count(): Promise<number>
}

export interface NewApiKey {
	orgId: string
	name: string
	prefix: string
	hash: string
	expiresAt?: Date | null
	containerTags?: string[] | null
}

export interface KeyStore {
	create(input: NewApiKey): Promise<ApiKey>
	/** Only keys that are not revoked (expired ones included: the caller decides). */
	byHash(hash: string): Promise<(ApiKey & { orgName: string }) | null>
	list(): Promise<(ApiKey & { orgName: string })[]>
	/** One organization's keys, revoked ones left out, oldest first. */
	listForOrg(orgId: string): Promise<ApiKey[]>
	/** True when a key was revoked by this call; with orgId, only a key of that organization. */
	revoke(id: string, orgId?: string): Promise<boolean>
	/** Records that the key was used now. */
	touch(id: string): Promise<void>
}

export interface NewDocument {
	containerTag: string
	customId: string | null
	content: string
	contentHash: string
	type: DocumentType
	taskType: TaskType
	dreaming: Dreaming
	metadata: Metadata | null
	filepath: string | null
	entityContext: string | null
	/** See DocumentRecord.formationScope. Omitted on a re-send: the document's is kept. */
	formationScope?: Metadata | null
	title: string | null
	url: string | null
	source: string | null
	connectionId?: string | null
	/** The uploaded original. Given (or null) it replaces the document's file on a re-send; omitted it is kept. */
	file?: StoredFile | null
	/**
	 * A re-send of the same (containerTag, customId) adds the content to the document's text instead of replacing
	 * it, and merges the metadata; content the document already holds changes nothing. Text documents only (a URL or
	 * uploaded document is replaced).
	 */
	append?: boolean
	/**
	 * Re-send to this document (by its id, in the same container tag) instead of the one with the customId: how a
	 * document without a caller id has its content replaced (404 when that document is not there).
	 */
	documentId?: string
	/**
	 * Without a customId: a document of the container without one, with the same content, metadata and entity
	 * context, created within this many seconds, is answered unchanged instead of a new one (a client's retry of an
	 * add whose answer it never saw). Concurrent twins make one document.
	 */
	retryWindowSeconds?: number
}

export interface UpsertResult {
	document: DocumentRecord
	/** True when a new row was inserted. */
	created: boolean
	/** True when the document needs (re)processing: new, or content changed. */
	needsProcessing: boolean
	/** The file a re-send replaced (its key differs from the new one): the caller removes it from the file store. */
	replacedFile?: StoredFile | null
}

export interface DocumentPatch {
	containerTag?: string
	content?: string
	contentHash?: string
	customId?: string | null
	metadata?: Metadata | null
	taskType?: TaskType
	filepath?: string | null
	entityContext?: string | null
	formationScope?: Metadata | null
	dreaming?: Dreaming
	/** Replaces (or with null, drops) the document's original file record. */
	file?: StoredFile | null
}

export type DocumentSort = 'createdAt' | 'updatedAt'

export interface ListDocumentsQuery {
	containerTags?: string[]
	filters?: QueryFilter
	filepath?: string
	page: number
	limit: number
	sort: DocumentSort
	order: 'asc' | 'desc'
}

/** `all` removes every document of the organization (settings reset). */
export type BulkDeleteSelector = { ids: string[] } | { containerTags: string[] } | { filepath: string } | { all: true }

export interface ProgressUpdate {
	/** The content the worker started from; the write applies only while the document still holds it. */
	contentHash: string
	status: DocumentStatus
	stages: StageRecord[]
	error?: string | null
	dreamingStatus?: DreamingStatus
}

export interface DocumentStore {
	/**
	 * Insert, or update the document with the same (containerTag, customId). Unchanged content keeps the status;
	 * changed content resets it to `queued`. Metadata and other fields are always updated.
	 */
	upsert(scope: Scope, input: NewDocument): Promise<UpsertResult>
	/**
	 * By id, or by customId when no id matches. With `containerTags`, only a document of one of them is found, in the
	 * same query (what a key restricted to those tags may reach).
	 */
	get(scope: Scope, idOrCustomId: string, containerTags?: string[]): Promise<DocumentRecord | null>
	/** The document of one container tag with that id, else with that customId. */
	getInContainer(scope: Scope, containerTag: string, idOrCustomId: string): Promise<DocumentRecord | null>
	getMany(scope: Scope, ids: string[]): Promise<DocumentRecord[]>
	/**
	 * The same without their content, which can be megabytes a document and which no search result shows. Optional:
	 * search reads `getMany` without it.
	 */
	headers?(scope: Scope, ids: string[]): Promise<DocumentHeader[]>
	/** Returns the updated document; `needsProcessing` is true when the content changed. */
	update(
		scope: Scope,
		id: string,
		patch: DocumentPatch,
	): Promise<{ document: DocumentRecord; needsProcessing: boolean } | null>
	/** Deletes the document and everything derived from it. False when it did not exist in this scope. */
	delete(scope: Scope, idOrCustomId: string): Promise<boolean>
	deleteMany(
		scope: Scope,
		selector: BulkDeleteSelector,
	): Promise<{ deletedIds: string[]; missingIds: string[]; deletedFileKeys?: string[] }>
	list(scope: Scope, query: ListDocumentsQuery): Promise<{ documents: DocumentRecord[]; total: number }>
	processing(scope: Scope): Promise<DocumentRecord[]>

	/* Pipeline side. */
	byId(id: string): Promise<DocumentRecord | null>
	/**
	 * Records pipeline progress, only while the document still holds the content the worker started from
	 * (`contentHash`). False when the document is gone or its content changed meanwhile: the worker must stop,
	 * since a newer job owns the document.
	 */
	setProgress(id: string, update: ProgressUpdate): Promise<boolean>
	/**
	 * Stores the text extracted from the content `contentHash` names, with its title, type and summary (none when not
	 * given), unless the document's content changed meanwhile; returns the text as stored (storage may normalize it).
	 */
	setExtracted(
		id: string,
		contentHash: string,
		extracted: { text: string; title: string | null; type: DocumentType; summary?: string | null },
	): Promise<string>
	/**
	 * The text extracted from the document's current content; null until it is extracted. Kept apart from the record
	 * (which lists and searches read in numbers) since it may be tens of megabytes.
	 */
	text(id: string): Promise<string | null>
	/** Documents left unfinished (not done, not failed), for re-enqueueing after a crash. */
	unfinished(limit: number): Promise<{ id: string; orgId: string }[]>
}

export interface NewChunk {
	position: number
	content: string
	type: 'text' | 'image'
	metadata: Record<string, unknown> | null
	/** Null only where nothing embeds it (it is then found by its words alone). */
	embedding: Float32Array | null
}

export interface ChunkStore {
	/** Published (searchable) chunks of a document, ordered by position. */
	list(scope: Scope, documentId: string): Promise<ChunkRecord[]>
	/** A page of the published chunks of a container tag, filtered on their documents' metadata. */
	listInContainer(
		scope: Scope,
		containerTag: string,
		query: {
			filters?: QueryFilter
			page: number
			limit: number
			sort: 'createdAt' | 'updatedAt' | 'position'
			order: 'asc' | 'desc'
		},
	): Promise<{ chunks: ChunkRecord[]; total: number }>
	byIds(scope: Scope, ids: string[]): Promise<ChunkRecord[]>
	/** Published chunks at the given positions of each document (for neighbour context). */
	atPositions(scope: Scope, wanted: { documentId: string; positions: number[] }[]): Promise<ChunkRecord[]>

	/*
	 * Pipeline side: chunks are staged with their embeddings (written once, not searchable yet), then published
	 * atomically.
	 */
	/** Drops what an earlier, abandoned run staged for the document. */
	clearStaged(documentId: string): Promise<void>
	/** Stages chunks, replacing any staged before at the same positions. */
	stage(documentId: string, chunks: NewChunk[]): Promise<void>
	/** The staged chunks, by position (a retried run embeds only the positions missing). */
	staged(documentId: string): Promise<(ChunkRecord & { embedded: boolean })[]>
	/**
	 * Replaces the document's searchable chunks with its staged ones, atomically for readers (they see the old chunks
	 * or the new ones, never a mix), without one long statement over every chunk; with nothing staged it
	 * changes nothing (a run resumed after a publish whose stage record was lost publishes again). Returns how many
	 * chunks it made searchable.
	 */
	publish(documentId: string): Promise<number>
}

export interface ChunkSearchQuery {
	containerTags: string[] | null
	vector: Float32Array
	/** Words of the query; storage builds its own full-text query from them. */
	terms: string[]
	filters?: QueryFilter
	documentId?: string
	/** Only chunks of these documents. */
	documentIds?: string[]
	filepath?: string
	/** Candidates per ranking. */
	limit: number
}

export interface VectorHit {
	chunkId: string
	documentId: string
	/** Cosine similarity in -1..1. */
	similarity: number
}

export interface TextHit {
	chunkId: string
	documentId: string
	/** Full-text rank normalized to 0..1. */
	rank: number
	/** Share of the query's words (as full-text lexemes) the chunk contains, 0..1. */
	coverage?: number
}

export interface SearchStore {
	chunksByVector(scope: Scope, query: ChunkSearchQuery): Promise<VectorHit[]>
	chunksByText(scope: Scope, query: ChunkSearchQuery): Promise<TextHit[]>
}

export interface MetaStore {
	get<T = unknown>(key: string): Promise<T | null>
	set(key: string, value: unknown): Promise<void>
}

/** Organization settings as one JSON object; core owns its shape (and encrypts secrets before they get here). */
export interface SettingsStore {
	get(orgId: string): Promise<Record<string, unknown>>
	put(orgId: string, settings: Record<string, unknown>): Promise<void>
}

export interface UsageEntry {
	orgId: string
	metric: string
	/** UTC day, YYYY-MM-DD. */
	day: string
	amount: number
}

export interface Quota {
	metric: string
	period: 'day' | 'month'
	max: number
}

/** Durable per-organization counters (summed per UTC day) and their quotas. */
export interface UsageStore {
	/** Adds the amounts to the counters, in one write. */
	add(entries: UsageEntry[]): Promise<void>
	/** Counters from `since` (YYYY-MM-DD, inclusive) on, per metric and day. */
	daily(orgId: string, since: string): Promise<UsageEntry[]>
	quotas(orgId: string): Promise<Quota[]>
	/** Sets or (with null) removes the quota of one metric. */
	setQuota(orgId: string, metric: string, quota: Omit<Quota, 'metric'> | null): Promise<void>
}
