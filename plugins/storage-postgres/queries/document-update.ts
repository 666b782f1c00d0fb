import { type DocumentPatch, type DocumentRecord, type Scope, ServiceError } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { Assignments } from './assignments.ts'
import { findDocument } from './document-lookup.ts'
import { touch } from './document-order.ts'
import { resetProcessing, setFile } from './document-upsert.ts'
import { isUniqueViolation, jsonParam, Params, textParam } from './params.ts'
import { type DocumentRow, toDocument } from './rows.ts'

export async function updateDocument(
	db: Db,
	scope: Scope,
	reference: string,
	patch: DocumentPatch,
): Promise<{ document: DocumentRecord; needsProcessing: boolean } | null> {
	if (patch.content !== undefined && patch.contentHash === undefined) {
		throw new Error('A document patch with content needs its contentHash')
	}
	return db.transaction(async (tx) => {
		const current = await findDocument(tx, scope, reference, true)
		if (!current) return null
		const params = new Params()
		const set = new Assignments(params)
		if (patch.containerTag !== undefined) set.value('container_tag', patch.containerTag)
		if (patch.customId !== undefined) set.value('custom_id', patch.customId)
		if (patch.metadata !== undefined) set.value('metadata', jsonParam(patch.metadata), '::jsonb')
		if (patch.taskType !== undefined) set.value('task_type', patch.taskType)
		if (patch.filepath !== undefined) set.value('filepath', patch.filepath)
		if (patch.entityContext !== undefined) set.value('entity_context', patch.entityContext)
		if (patch.formationScope !== undefined) set.value('formation_scope', jsonParam(patch.formationScope), '::jsonb')
		if (patch.dreaming !== undefined) set.value('dreaming', patch.dreaming)
		if (patch.content !== undefined) set.value('content', textParam(patch.content))
		if (patch.contentHash !== undefined) set.value('content_hash', patch.contentHash)
		if (patch.file !== undefined) setFile(set, patch.file)
		const reprocess =
			patch.contentHash !== undefined && (patch.contentHash !== current.content_hash || current.status === 'failed')
		if (reprocess) resetProcessing(set)
		if (set.size === 0) return { document: toDocument(current), needsProcessing: false }
		touch(set)

		const updated = await applyUpdate(
			tx,
			`UPDATE documents SET ${set} WHERE id = ${params.add(current.id)} RETURNING *`,
			params,
		)
		if (updated.container_tag !== current.container_tag) {
			await tx.query('UPDATE chunks SET container_tag = $1 WHERE document_id = $2', [updated.container_tag, updated.id])
		}
		return { document: toDocument(updated), needsProcessing: reprocess }
	})
}

async function applyUpdate(tx: Db, text: string, params: Params): Promise<DocumentRow> {
	try {
		const [row] = await tx.query<DocumentRow>(text, params.values)
		return row!
	} catch (error) {
		// The only unique key an update can break is (org, containerTag, customId).
		if (isUniqueViolation(error)) throw new ServiceError(409, 'customId already exists in that container')
		throw error
	}
}
