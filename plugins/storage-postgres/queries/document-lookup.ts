import type { DocumentHeader, DocumentRecord, Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { DOCUMENT_HEADER_COLUMNS, type DocumentRow, inIdOrder, toDocument, toDocumentHeader } from './rows.ts'

/**
 * Picks the document a reference ($2) names in an org ($1): the one with that id, else the one with that customId (the
 * most recently updated when several containers hold it). Another org's id matches nothing.
 */
export const BY_REFERENCE = `WHERE org_id = $1 AND (id = $2 OR custom_id = $2)
	ORDER BY (id = $2) DESC, updated_at DESC, updated_seq DESC
	LIMIT 1`

export async function findDocument(db: Db, scope: Scope, reference: string, lock = false): Promise<DocumentRow | null> {
	const [row] = await db.query<DocumentRow>(`SELECT * FROM documents ${BY_REFERENCE}${lock ? ' FOR UPDATE' : ''}`, [
		scope.orgId,
		reference,
	])
	return row ?? null
}

/** As findDocument; with `containerTags`, among the documents of those tags only. */
export async function getDocument(
	db: Db,
	scope: Scope,
	reference: string,
	containerTags?: string[],
): Promise<DocumentRecord | null> {
	if (containerTags === undefined) {
		const row = await findDocument(db, scope, reference)
		return row ? toDocument(row) : null
	}
	const [row] = await db.query<DocumentRow>(
		`SELECT * FROM documents WHERE org_id = $1 AND (id = $2 OR custom_id = $2) AND container_tag = ANY($3::text[])
		ORDER BY (id = $2) DESC, updated_at DESC, updated_seq DESC
		LIMIT 1`,
		[scope.orgId, reference, containerTags],
	)
	return row ? toDocument(row) : null
}

export async function getDocumentInContainer(
	db: Db,
	scope: Scope,
	containerTag: string,
	reference: string,
): Promise<DocumentRecord | null> {
	const [row] = await db.query<DocumentRow>(
		`SELECT * FROM documents WHERE org_id = $1 AND container_tag = $2 AND (id = $3 OR custom_id = $3)
		ORDER BY (id = $3) DESC LIMIT 1`,
		[scope.orgId, containerTag, reference],
	)
	return row ? toDocument(row) : null
}

/** By id only, in the order asked; unknown ids are left out. */
export function getDocuments(db: Db, scope: Scope, ids: string[]): Promise<DocumentRecord[]> {
	return documentsById(db, scope, ids, '*', toDocument)
}

/** getDocuments without the content. */
export function getDocumentHeaders(db: Db, scope: Scope, ids: string[]): Promise<DocumentHeader[]> {
	return documentsById(db, scope, ids, DOCUMENT_HEADER_COLUMNS, toDocumentHeader)
}

async function documentsById<Row extends { id: string }, T extends { id: string }>(
	db: Db,
	scope: Scope,
	ids: string[],
	columns: string,
	toRecord: (row: Row) => T,
): Promise<T[]> {
	if (ids.length === 0) return []
	const rows = await db.query<Row>(`SELECT ${columns} FROM documents WHERE org_id = $1 AND id = ANY($2::text[])`, [
		scope.orgId,
		ids,
	])
	return inIdOrder(ids, rows.map(toRecord))
}

export async function documentById(db: Db, id: string): Promise<DocumentRecord | null> {
	const [row] = await db.query<DocumentRow>('SELECT * FROM documents WHERE id = $1', [id])
	return row ? toDocument(row) : null
}
