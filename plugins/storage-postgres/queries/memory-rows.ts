import type { LinkableMemory, MemoryRecord } from '../../../core/index.ts'
import type { Params } from './params.ts'

export interface MemoryRow {
	id: string
	org_id: string
	container_tag: string
	memory: string
	version: number
	is_latest: boolean
	parent_memory_id: string | null
	root_id: string
	is_static: boolean
	is_forgotten: boolean
	forget_after: Date | null
	forget_reason: string | null
	forget_batch_id: string | null
	is_inference: boolean
	subject: string | null
	attribute: string | null
	value: string | null
	metadata: Record<string, unknown> | null
	event_dates: string[]
	buckets: string[]
	document_ids: string[]
	created_at: Date
	updated_at: Date
}

/** A memory's own columns (alias `m`), without the embedding and tsvector. */
const MEMORY_FIELDS = `m.id, m.org_id, m.container_tag, m.memory, m.version, m.is_latest, m.parent_memory_id,
	m.root_id, m.is_static, m.is_forgotten, m.forget_after, m.forget_reason, m.forget_batch_id, m.is_inference,
	m.subject, m.attribute, m.value, m.metadata, m.event_dates, m.buckets, m.created_at, m.updated_at`

/** A memory's source documents, oldest link first. */
const SOURCE_ORDER = 'ORDER BY s.created_at, s.document_id'

/** Memory columns (alias `m`) without the embedding and tsvector, plus the source documents, oldest link first. */
export const MEMORY_COLUMNS = `${MEMORY_FIELDS},
	ARRAY(SELECT s.document_id FROM memory_sources s WHERE s.memory_id = m.id ${SOURCE_ORDER}) AS document_ids`

/**
 * The memories of the ids ($2) in the organization ($1) as one JSON array (NULL when none): rows of MEMORY_COLUMNS,
 * with the timestamps as text (rowsFromJson). One value to decode instead of 23 per row, and the sources of all of them
 * read by one index scan instead of one subquery per row (measured in bench/README, Search).
 */
export const MEMORIES_BY_ID_JSON = `WITH sources AS (
		SELECT s.memory_id, array_agg(s.document_id ${SOURCE_ORDER}) AS document_ids
		FROM memory_sources s WHERE s.memory_id = ANY($2::text[]) GROUP BY s.memory_id
	)
	SELECT json_agg(r) AS rows FROM (
		SELECT ${MEMORY_FIELDS}, coalesce(sources.document_ids, '{}') AS document_ids
		FROM memories m LEFT JOIN sources ON sources.memory_id = m.id
		WHERE m.org_id = $1 AND m.id = ANY($2::text[])
	) r`

/** A MemoryRow as JSON carries it: its timestamps as text. */
export type MemoryJsonRow = {
	[K in keyof MemoryRow]: MemoryRow[K] extends Date
		? string
		: MemoryRow[K] extends Date | null
			? string | null
			: MemoryRow[K]
}

/** The rows of MEMORIES_BY_ID_JSON, their timestamps as dates again. */
export function rowsFromJson(rows: MemoryJsonRow[] | null | undefined): MemoryRow[] {
	return (rows ?? []).map((row) => ({
		...row,
		forget_after: row.forget_after === null ? null : new Date(row.forget_after),
		created_at: new Date(row.created_at),
		updated_at: new Date(row.updated_at),
	}))
}

export function toMemory(row: MemoryRow): MemoryRecord {
	return {
		id: row.id,
		orgId: row.org_id,
		containerTag: row.container_tag,
		memory: row.memory,
		version: row.version,
		isLatest: row.is_latest,
		parentMemoryId: row.parent_memory_id,
		rootMemoryId: row.root_id === row.id ? null : row.root_id,
		isStatic: row.is_static,
		isForgotten: row.is_forgotten,
		forgetAfter: row.forget_after,
		forgetReason: row.forget_reason,
		forgetBatchId: row.forget_batch_id,
		isInference: row.is_inference,
		subject: row.subject,
		attribute: row.attribute,
		value: row.value,
		metadata: row.metadata,
		eventDates: row.event_dates ?? [],
		buckets: row.buckets ?? [],
		documentIds: row.document_ids ?? [],
		createdAt: row.created_at,
		updatedAt: row.updated_at,
	}
}

export type LinkableRow = Omit<MemoryRow, 'org_id' | 'container_tag' | 'document_ids' | 'created_at' | 'updated_at'> & {
	content_key: string
}

export const LINKABLE_COLUMNS = `m.id, m.memory, m.content_key, m.subject, m.attribute, m.value, m.version, m.root_id,
	m.is_static, m.is_latest, m.is_forgotten, m.metadata, m.forget_after, m.forget_reason, m.event_dates`

export function toLinkable(row: LinkableRow): LinkableMemory {
	return {
		id: row.id,
		memory: row.memory,
		contentKey: row.content_key,
		subject: row.subject,
		attribute: row.attribute,
		value: row.value,
		version: row.version,
		rootId: row.root_id,
		isStatic: row.is_static,
		isLatest: row.is_latest,
		isForgotten: row.is_forgotten,
		metadata: row.metadata,
		forgetAfter: row.forget_after,
		forgetReason: row.forget_reason,
		eventDates: row.event_dates ?? [],
	}
}

/** A memory that still counts: neither forgotten nor past its expiry. */
export const ACTIVE = '(NOT m.is_forgotten AND (m.forget_after IS NULL OR m.forget_after > now()))'

/** Scope conditions on memories (alias `m`) of one org and, when given, some containers. */
export function memoryScope(orgId: string, containerTags: string[] | null, params: Params): string[] {
	const conditions = [`m.org_id = ${params.add(orgId)}`]
	if (containerTags) conditions.push(`m.container_tag = ANY(${params.add(containerTags)}::text[])`)
	return conditions
}
