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
	StageRecord,
	StoredFile,
	TaskType,
} from '../../../core/index.ts'

/** Rows as both drivers return them: timestamptz as Date, jsonb parsed. */
export interface OrgRow {
	id: string
	name: string
	created_at: Date
}

export interface ApiKeyRow {
	id: string
	org_id: string
	name: string
	prefix: string
	created_at: Date
	last_used_at: Date | null
	revoked_at: Date | null
	expires_at: Date | null
	container_tags: string[] | null
}

export interface DocumentRow {
	id: string
	org_id: string
	container_tag: string
	custom_id: string | null
	connection_id: string | null
	content: string
	content_hash: string
	title: string | null
	summary: string | null
	source: string | null
	url: string | null
	type: DocumentType
	task_type: TaskType
	status: DocumentStatus
	dreaming: Dreaming
	dreaming_status: DreamingStatus
	metadata: Metadata | null
	filepath: string | null
	entity_context: string | null
	formation_scope: Metadata | null
	error: string | null
	stages: StageRecord[]
	file_key: string | null
	file_name: string | null
	file_mime_type: string | null
	/** bigint: postgres.js returns it as a string. */
	file_size: string | number | null
	created_at: Date
	updated_at: Date
}

export interface ChunkRow {
	id: string
	document_id: string
	position: number
	content: string
	type: 'text' | 'image'
	metadata: Record<string, unknown> | null
	created_at: Date
}

/** Chunk columns without the embedding and tsvector, which callers never need back. */
export const CHUNK_COLUMNS = 'c.id, c.document_id, c.position, c.content, c.type, c.metadata, c.created_at'

export function toOrg(row: OrgRow): Org {
	return { id: row.id, name: row.name, createdAt: row.created_at }
}

export function toApiKey(row: ApiKeyRow): ApiKey {
	return {
		id: row.id,
		orgId: row.org_id,
		name: row.name,
		prefix: row.prefix,
		createdAt: row.created_at,
		lastUsedAt: row.last_used_at,
		revokedAt: row.revoked_at,
		expiresAt: row.expires_at,
		containerTags: row.container_tags,
	}
}

export function toApiKeyWithOrg(row: ApiKeyRow & { org_name: string }): ApiKey & { orgName: string } {
	return { ...toApiKey(row), orgName: row.org_name }
}

/** The records of `ids` in the order asked, each once; ids without a record are left out. */
export function inIdOrder<T extends { id: string }>(ids: string[], records: T[]): T[] {
	const byId = new Map(records.map((record) => [record.id, record]))
	return [...new Set(ids)].flatMap((id) => byId.get(id) ?? [])
}

/** The columns of a DocumentRow but its content. */
export const DOCUMENT_HEADER_COLUMNS = `id, org_id, container_tag, custom_id, connection_id, content_hash, title, summary,
	source, url, type, task_type, status, dreaming, dreaming_status, metadata, filepath, entity_context, formation_scope,
	error, stages, file_key, file_name, file_mime_type, file_size, created_at, updated_at`

export function toDocument(row: DocumentRow): DocumentRecord {
	return { ...toDocumentHeader(row), content: row.content }
}

export function toDocumentHeader(row: Omit<DocumentRow, 'content'>): DocumentHeader {
	return {
		id: row.id,
		orgId: row.org_id,
		containerTag: row.container_tag,
		customId: row.custom_id,
		connectionId: row.connection_id,
		contentHash: row.content_hash,
		title: row.title,
		summary: row.summary,
		source: row.source,
		url: row.url,
		type: row.type,
		taskType: row.task_type,
		status: row.status,
		dreaming: row.dreaming,
		dreamingStatus: row.dreaming_status,
		metadata: row.metadata,
		filepath: row.filepath,
		entityContext: row.entity_context,
		formationScope: row.formation_scope ?? null,
		error: row.error,
		stages: row.stages,
		file: toStoredFile(row),
		createdAt: row.created_at,
		updatedAt: row.updated_at,
	}
}

export function toStoredFile(row: Omit<DocumentRow, 'content'>): StoredFile | null {
	if (row.file_key === null) return null
	return {
		key: row.file_key,
		name: row.file_name ?? '',
		mimeType: row.file_mime_type ?? 'application/octet-stream',
		size: Number(row.file_size ?? 0),
	}
}

export function toChunk(row: ChunkRow): ChunkRecord {
	return {
		id: row.id,
		documentId: row.document_id,
		position: row.position,
		content: row.content,
		type: row.type,
		metadata: row.metadata,
		createdAt: row.created_at,
	}
}
