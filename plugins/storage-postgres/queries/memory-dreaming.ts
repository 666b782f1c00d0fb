import type { DocumentFormationState, Scope, StageRecord } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { jsonParam } from './params.ts'
import { type DocumentRow, toDocument } from './rows.ts'

/** Documents whose pipeline is done and whose memories are still to be formed (they use documents_dreaming_idx). */
const PENDING = "d.status = 'done' AND d.dreaming_status = 'dreaming'"

export async function formationState(db: Db, documentId: string): Promise<DocumentFormationState | null> {
	const [row] = await db.query<
		DocumentRow & { memories_hash: string | null; extracted_turns: number; turns_hash: string | null }
	>('SELECT * FROM documents WHERE id = $1', [documentId])
	if (!row) return null
	return {
		document: toDocument(row),
		orgId: row.org_id,
		containerTag: row.container_tag,
		contentHash: row.content_hash,
		formedHash: row.memories_hash,
		extractedTurns: row.extracted_turns,
		turnsHash: row.turns_hash,
	}
}

export async function pendingContainers(db: Db, limit: number): Promise<{ orgId: string; containerTag: string }[]> {
	const rows = await db.query<{ org_id: string; container_tag: string }>(
		`SELECT DISTINCT d.org_id, d.container_tag FROM documents d WHERE ${PENDING} ORDER BY d.org_id, d.container_tag LIMIT $1`,
		[limit],
	)
	return rows.map((row) => ({ orgId: row.org_id, containerTag: row.container_tag }))
}

export async function pendingDocuments(db: Db, orgId: string, containerTag: string, limit: number): Promise<string[]> {
	const rows = await db.query<{ id: string }>(
		`SELECT d.id FROM documents d WHERE d.org_id = $1 AND d.container_tag = $2 AND ${PENDING}
		ORDER BY d.created_at, d.created_seq LIMIT $3`,
		[orgId, containerTag, limit],
	)
	return rows.map((row) => row.id)
}

export async function formingDocuments(
	db: Db,
	scope: Scope,
	containerTags: string[] | null,
	limit: number,
): Promise<string[]> {
	const rows = await db.query<{ id: string }>(
		`SELECT d.id FROM documents d WHERE d.org_id = $1 AND ${PENDING}
		AND ($2::text[] IS NULL OR d.container_tag = ANY($2::text[]))
		ORDER BY d.created_at, d.created_seq LIMIT $3`,
		[scope.orgId, containerTags, limit],
	)
	return rows.map((row) => row.id)
}

export async function inPipeline(db: Db, orgId: string, containerTag: string): Promise<number> {
	const [row] = await db.query<{ n: number }>(
		`SELECT count(*)::int AS n FROM documents d
		WHERE d.org_id = $1 AND d.container_tag = $2 AND d.task_type = 'memory' AND d.status NOT IN ('done', 'failed')`,
		[orgId, containerTag],
	)
	return row?.n ?? 0
}

export async function pendingAgeSeconds(db: Db, orgId: string, containerTag: string): Promise<number | null> {
	const [row] = await db.query<{ age: number | null }>(
		`SELECT extract(epoch FROM now() - min(d.updated_at))::float8 AS age FROM documents d
		WHERE d.org_id = $1 AND d.container_tag = $2 AND ${PENDING}`,
		[orgId, containerTag],
	)
	return row?.age ?? null
}

export async function markDreamed(
	db: Db,
	documentId: string,
	contentHash: string,
	stage?: StageRecord,
): Promise<boolean> {
	const rows = await db.query(
		`UPDATE documents SET dreaming_status = 'done',
			stages = CASE WHEN $3::jsonb IS NULL THEN stages ELSE stages || jsonb_build_array($3::jsonb) END,
			updated_at = now(), updated_seq = nextval('document_changes')
		WHERE id = $1 AND content_hash = $2 RETURNING id`,
		[documentId, contentHash, jsonParam(stage ?? null)],
	)
	return rows.length > 0
}
