import {
	contentHash,
	type NewDocument,
	newId,
	type Scope,
	ServiceError,
	type StoredFile,
	type UpsertResult,
} from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { Assignments } from './assignments.ts'
import { touch } from './document-order.ts'
import { jsonParam, Params, type Statement, textParam } from './params.ts'
import { type DocumentRow, toDocument, toStoredFile } from './rows.ts'

/**
 * Inserts the document, or updates the one with the same (containerTag, customId). The row is locked while deciding,
 * and the insert gives way (ON CONFLICT DO NOTHING) to a concurrent upsert of the same customId, whose row the second
 * attempt then updates: two concurrent upserts make one row.
 */
export async function upsertDocument(db: Db, scope: Scope, input: NewDocument): Promise<UpsertResult> {
	const { customId, documentId } = input
	if (documentId !== undefined) {
		return db.transaction(async (tx) => {
			const existing = await lockById(tx, scope, input.containerTag, documentId)
			if (!existing) throw new ServiceError(404, 'Document not found')
			return resend(tx, existing, input)
		})
	}
	if (customId === null && input.retryWindowSeconds) {
		const window = input.retryWindowSeconds
		return db.transaction(async (tx) => {
			await tx.query("SELECT pg_advisory_xact_lock(hashtext('memory-service:add:' || $1 || ':' || $2 || ':' || $3))", [
				scope.orgId,
				input.containerTag,
				input.contentHash,
			])
			const twin = await recentTwin(tx, scope, input, window)
			if (twin) return { document: toDocument(twin), created: false, needsProcessing: false }
			return created((await insertDocument(tx, scope, input))!)
		})
	}
	if (customId === null) return created((await insertDocument(db, scope, input))!)
	return db.transaction(async (tx) => {
		for (let attempt = 0; attempt < 2; attempt++) {
			const existing = await lockByCustomId(tx, scope, input.containerTag, customId)
			if (existing) return resend(tx, existing, input)
			const inserted = await insertDocument(tx, scope, input)
			if (inserted) return created(inserted)
		}
		throw new Error('The document changed concurrently while it was upserted; try again')
	})
}

function created(row: DocumentRow): UpsertResult {
	return { document: toDocument(row), created: true, needsProcessing: true }
}

async function lockByCustomId(
	tx: Db,
	scope: Scope,
	containerTag: string,
	customId: string,
): Promise<DocumentRow | null> {
	const [row] = await tx.query<DocumentRow>(
		'SELECT * FROM documents WHERE org_id = $1 AND container_tag = $2 AND custom_id = $3 FOR UPDATE',
		[scope.orgId, containerTag, customId],
	)
	return row ?? null
}

/** The same add, made moments ago without a customId (see NewDocument.retryWindowSeconds). */
async function recentTwin(tx: Db, scope: Scope, input: NewDocument, seconds: number): Promise<DocumentRow | null> {
	const statement = recentTwinStatement(scope, input, seconds)
	const [row] = await tx.query<DocumentRow>(statement.text, statement.params)
	return row ?? null
}

/** The lookup of `recentTwin`; it reads the documents of the same content only (documents_twin_idx). */
export function recentTwinStatement(scope: Scope, input: NewDocument, seconds: number): Statement {
	return {
		text: `SELECT * FROM documents WHERE org_id = $1 AND container_tag = $2 AND custom_id IS NULL AND content_hash = $3
			AND created_at >= now() - make_interval(secs => $4) AND metadata IS NOT DISTINCT FROM $5::jsonb
			AND entity_context IS NOT DISTINCT FROM $6 AND formation_scope IS NOT DISTINCT FROM $7::jsonb
			AND file_key IS NULL
		ORDER BY created_at DESC LIMIT 1`,
		params: [
			scope.orgId,
			input.containerTag,
			input.contentHash,
			seconds,
			jsonParam(input.metadata),
			input.entityContext,
			jsonParam(input.formationScope ?? null),
		],
	}
}

async function lockById(tx: Db, scope: Scope, containerTag: string, id: string): Promise<DocumentRow | null> {
	const [row] = await tx.query<DocumentRow>(
		'SELECT * FROM documents WHERE org_id = $1 AND container_tag = $2 AND id = $3 FOR UPDATE',
		[scope.orgId, containerTag, id],
	)
	return row ?? null
}

/** Null when a document with the same customId exists (inserted concurrently); never null without a customId. */
async function insertDocument(tx: Db, scope: Scope, input: NewDocument): Promise<DocumentRow | null> {
	const params = new Params()
	const values = [
		params.add(newId()),
		params.add(scope.orgId),
		params.add(input.containerTag),
		params.add(input.customId),
		params.add(input.connectionId ?? null),
		params.add(textParam(input.content)),
		params.add(input.contentHash),
		params.add(input.title),
		params.add(input.source),
		params.add(input.url),
		params.add(input.type),
		params.add(input.taskType),
		params.add(input.dreaming),
		`${params.add(jsonParam(input.metadata))}::jsonb`,
		params.add(input.filepath),
		params.add(input.entityContext),
		`${params.add(jsonParam(input.formationScope ?? null))}::jsonb`,
		...fileValues(input.file ?? null).map((value) => params.add(value)),
	]
	const [row] = await tx.query<DocumentRow>(
		`INSERT INTO documents (id, org_id, container_tag, custom_id, connection_id, content, content_hash, title, source, url,
			type, task_type, dreaming, metadata, filepath, entity_context, formation_scope, file_key, file_name, file_mime_type, file_size,
			status, dreaming_status)
		VALUES (${values.join(', ')}, 'queued', 'dreaming')
		ON CONFLICT (org_id, container_tag, custom_id) WHERE custom_id IS NOT NULL DO NOTHING
		RETURNING *`,
		params.values,
	)
	return row ?? null
}

/**
 * A re-send of an existing document. Unchanged content keeps its status and chunks; changed content (or a document
 * that failed) goes back to `queued`, while its old chunks stay searchable until the new ones are published.
 */
async function resend(tx: Db, existing: DocumentRow, sent: NewDocument): Promise<UpsertResult> {
	const input = sent.append ? appended(existing, sent) : sent
	const contentChanged = existing.content_hash !== input.contentHash
	const reprocess = contentChanged || existing.status === 'failed'
	const params = new Params()
	const set = touch(new Assignments(params))
		.value('content', textParam(input.content))
		.value('content_hash', input.contentHash)
		.value('metadata', jsonParam(input.metadata), '::jsonb')
		.value('task_type', input.taskType)
		.value('dreaming', input.dreaming)
		.value('filepath', input.filepath)
		.value('entity_context', input.entityContext)
		.value('url', input.url)
		.value('source', input.source)
	if (input.connectionId !== undefined) set.value('connection_id', input.connectionId)
	if (input.formationScope !== undefined) set.value('formation_scope', jsonParam(input.formationScope), '::jsonb')
	if (input.file !== undefined) setFile(set, input.file)
	// Without a title in the re-send, the same content keeps the title its extraction found.
	if (contentChanged) set.value('title', input.title)
	else set.raw('title', `coalesce(${params.add(input.title)}, title)`)
	if (reprocess) resetProcessing(set).value('type', input.type)
	const [row] = await tx.query<DocumentRow>(
		`UPDATE documents SET ${set} WHERE id = ${params.add(existing.id)} RETURNING *`,
		params.values,
	)
	const replacedFile = input.file !== undefined && existing.file_key !== (input.file?.key ?? null)
	return {
		document: toDocument(row!),
		created: false,
		needsProcessing: reprocess,
		replacedFile: replacedFile ? toStoredFile(existing) : null,
	}
}

/**
 * An append to a text document: the new text after the old (unless the document already holds it, which makes a
 * retried append change nothing), the metadata merged (the new values win), the processing context kept when none
 * is sent.
 */
function appended(existing: DocumentRow, input: NewDocument): NewDocument {
	if (existing.file_key !== null || existing.url !== null || input.url !== null) return input
	const content = existing.content.includes(input.content)
		? existing.content
		: `${existing.content}\n\n${input.content}`
	const metadata = existing.metadata || input.metadata ? { ...existing.metadata, ...input.metadata } : null
	return {
		...input,
		content,
		contentHash: contentHash(content),
		metadata,
		entityContext: input.entityContext ?? existing.entity_context,
		title: input.title ?? existing.title,
	}
}

/** The file columns, in the order of the INSERT. */
function fileValues(file: StoredFile | null): unknown[] {
	return [file?.key ?? null, file?.name ?? null, file?.mimeType ?? null, file?.size ?? null]
}

/** Replaces the file record (null drops it). */
export function setFile(set: Assignments, file: StoredFile | null): Assignments {
	const [key, name, mimeType, size] = fileValues(file)
	return set.value('file_key', key).value('file_name', name).value('file_mime_type', mimeType).value('file_size', size)
}

/**
 * Everything the pipeline derived from the previous content is cleared; its chunks are replaced on publish, and its
 * text parts, kept under the previous content hash, are no longer read.
 */
export function resetProcessing(set: Assignments): Assignments {
	return set
		.raw('status', "'queued'")
		.raw('stages', "'[]'::jsonb")
		.raw('error', 'NULL')
		.raw('summary', 'NULL')
		.raw('dreaming_status', "'dreaming'")
}
