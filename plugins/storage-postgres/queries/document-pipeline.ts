import type { ProgressUpdate } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { Assignments } from './assignments.ts'
import { chronological, touch } from './document-order.ts'
import { Params } from './params.ts'

/** Writes of the worker, by document id: the worker got the id from a job that was scoped when it was enqueued. */
export async function setProgress(db: Db, id: string, update: ProgressUpdate): Promise<boolean> {
	const params = new Params()
	const set = touch(
		new Assignments(params).value('status', update.status).value('stages', JSON.stringify(update.stages), '::jsonb'),
	)
	if (update.error !== undefined) set.value('error', update.error)
	if (update.dreamingStatus !== undefined) set.value('dreaming_status', update.dreamingStatus)
	const rows = await db.query(
		`UPDATE documents SET ${set} WHERE id = ${params.add(id)} AND content_hash = ${params.add(update.contentHash)} RETURNING id`,
		params.values,
	)
	return rows.length > 0
}

export async function unfinishedDocuments(db: Db, limit: number): Promise<{ id: string; orgId: string }[]> {
	const rows = await db.query<{ id: string; org_id: string }>(
		`SELECT id, org_id FROM documents WHERE status NOT IN ('done', 'failed') ORDER BY ${chronological('updated', 'ASC', 'documents')} LIMIT $1`,
		[limit],
	)
	return rows.map((row) => ({ id: row.id, orgId: row.org_id }))
}
