import type { BulkDeleteSelector, Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { documentConditions } from './document-conditions.ts'
import { BY_REFERENCE } from './document-lookup.ts'
import { chronological } from './document-order.ts'
import { Params } from './params.ts'

/** Deletes a document by id or customId; its chunks go with it (ON DELETE CASCADE). */
export async function deleteDocument(db: Db, scope: Scope, reference: string): Promise<boolean> {
	const rows = await db.query(
		`DELETE FROM documents WHERE id = (SELECT id FROM documents ${BY_REFERENCE}) RETURNING id`,
		[scope.orgId, reference],
	)
	return rows.length > 0
}

export async function deleteDocuments(
	db: Db,
	scope: Scope,
	selector: BulkDeleteSelector,
): Promise<{ deletedIds: string[]; missingIds: string[]; deletedFileKeys: string[] }> {
	if ('ids' in selector) return deleteByReferences(db, scope, selector.ids)
	const params = new Params()
	const selection =
		'containerTags' in selector
			? { containerTags: selector.containerTags }
			: 'filepath' in selector
				? { filepath: selector.filepath }
				: {}
	const rows = await db.query<{ id: string; file_key: string | null }>(
		`DELETE FROM documents AS d WHERE ${documentConditions(scope.orgId, selection, params).join(' AND ')} RETURNING d.id, d.file_key`,
		params.values,
	)
	return { deletedIds: rows.map((row) => row.id), missingIds: [], deletedFileKeys: fileKeys(rows) }
}

/** Each reference is an id or a customId, resolved like a single delete; the ones that match nothing are reported. */
async function deleteByReferences(
	db: Db,
	scope: Scope,
	references: string[],
): Promise<{ deletedIds: string[]; missingIds: string[]; deletedFileKeys: string[] }> {
	const unique = [...new Set(references)]
	if (unique.length === 0) return { deletedIds: [], missingIds: [], deletedFileKeys: [] }
	const rows = await db.query<{ reference: string; id: string; file_key: string | null }>(
		`WITH targets AS (
			SELECT DISTINCT ON (wanted.reference) wanted.reference, d.id
			FROM unnest($2::text[]) AS wanted(reference)
			JOIN documents d ON d.org_id = $1 AND (d.id = wanted.reference OR d.custom_id = wanted.reference)
			ORDER BY wanted.reference, (d.id = wanted.reference) DESC, ${chronological('updated', 'DESC')}
		),
		deleted AS (DELETE FROM documents WHERE id IN (SELECT id FROM targets) RETURNING id, file_key)
		SELECT targets.reference, targets.id, deleted.file_key FROM targets JOIN deleted ON deleted.id = targets.id`,
		[scope.orgId, unique],
	)
	const found = new Set(rows.map((row) => row.reference))
	return {
		deletedIds: [...new Set(rows.map((row) => row.id))],
		missingIds: unique.filter((reference) => !found.has(reference)),
		deletedFileKeys: fileKeys(rows),
	}
}

/** The file-store keys of deleted documents, each once, so the caller can remove the originals. */
function fileKeys(rows: { file_key: string | null }[]): string[] {
	return [...new Set(rows.flatMap((row) => (row.file_key === null ? [] : [row.file_key])))]
}
