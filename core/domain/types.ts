/** Domain records shared by core, storage plugins and routes. Times are Date objects; routes serialise them. */

export const DOCUMENT_STATUSES = [
	'unknown',
	'queued',
	'extracting',
	'chunking',
	'embedding',
	'indexing',
	'done',
	'failed',
] as const
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number]

/** The pipeline stages a worker walks, in order. */
export const PIPELINE_STAGES = ['extracting', 'chunking', 'embedding', 'indexing'] as const
export type PipelineStage = (typeof PIPELINE_STAGES)[number]
/** Memory formation, recorded after the pipeline stages (before `done` with instant dreaming, after it with dynamic). */
export type RecordedStage = PipelineStage | 'memories'

export const DOCUMENT_TYPES = [
	'text',
	'pdf',
	'tweet',
	'google_doc',
	'google_slide',
	'google_sheet',
	'image',
	'video',
	'audio',
	'notion_doc',
	'webpage',
	'onedrive',
	'github_markdown',
	'granola',
] as const
export type DocumentType = (typeof DOCUMENT_TYPES)[number]

export const DREAMING_MODES = ['instant', 'dynamic'] as const
export type Dreaming = (typeof DREAMING_MODES)[number]
export type DreamingStatus = 'dreaming' | 'done'

export const TASK_TYPES = ['memory', 'superrag'] as const
export type TaskType = (typeof TASK_TYPES)[number]

export type MetadataValue = string | number | boolean | string[]
export type Metadata = Record<string, MetadataValue>

export interface Org {
	id: string
	name: string
	createdAt: Date
}

export interface ApiKey {
	id: string
	orgId: string
	name: string
	/** First characters of the key, safe to show in listings. */
	prefix: string
	createdAt: Date
	lastUsedAt: Date | null
	revokedAt: Date | null
	/** After this instant the key is refused everywhere; null never expires. */
	expiresAt: Date | null
	/** The only container tags the key may read and write; null is unrestricted (may also manage keys and settings). */
	containerTags: string[] | null
}

/** One recorded pipeline stage: when it started and ended, and how it went. */
export interface StageRecord {
	stage: RecordedStage
	startedAt: string
	endedAt: string | null
	outcome: 'running' | 'ok' | 'failed'
	error?: string
}

export interface DocumentRecord {
	id: string
	orgId: string
	containerTag: string
	customId: string | null
	connectionId: string | null
	/** What the user sent: text, a URL, or serialised structured content. */
	content: string
	contentHash: string
	title: string | null
	summary: string | null
	source: string | null
	url: string | null
	type: DocumentType
	taskType: TaskType
	status: DocumentStatus
	dreaming: Dreaming
	dreamingStatus: DreamingStatus
	metadata: Metadata | null
	filepath: string | null
	entityContext: string | null
	/**
	 * Limits the memories this document's formation links to (updates, duplicates, relations) to those whose metadata
	 * matches: every key, a scalar equal, an array any of its values. Null: every memory of the container.
	 */
	formationScope: Metadata | null
	error: string | null
	stages: StageRecord[]
	/** The original file of an uploaded document, kept in the file store; null for text, URLs and JSON. */
	file: StoredFile | null
	createdAt: Date
	updatedAt: Date
}

/** A document without what the user sent: all a search result shows of it. */
export type DocumentHeader = Omit<DocumentRecord, 'content'>

/** An original file kept in the file store, as recorded on its document. */
export interface StoredFile {
	/** The file store's key. */
	key: string
	/** The name it was uploaded with. */
	name: string
	/** The detected media type, e.g. application/pdf. */
	mimeType: string
	size: number
}

export interface ChunkRecord {
	id: string
	documentId: string
	position: number
	content: string
	type: 'text' | 'image'
	metadata: Record<string, unknown> | null
	createdAt: Date
}

/** Every read and write happens inside one organization and, where it applies, one or more container tags. */
export interface Scope {
	orgId: string
}
