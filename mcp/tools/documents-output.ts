import { z } from 'zod'
import { DOCUMENT_STATUSES, DOCUMENT_TYPES, type DocumentRecord } from '../../core/domain/types.ts'
import { iso } from './kit.ts'

export const documentSummary = z.object({
	id: z.string(),
	title: z.string().nullable(),
	type: z.enum(DOCUMENT_TYPES),
	status: z.enum(DOCUMENT_STATUSES),
	/** `dreaming` while a done document's memories are still to be formed (dynamic dreaming). */
	dreamingStatus: z.enum(['dreaming', 'done']),
	containerTag: z.string(),
	createdAt: z.string(),
	updatedAt: z.string(),
	summary: z.string().nullable(),
	error: z.string().nullable(),
})

export function summaryOf(document: DocumentRecord): z.infer<typeof documentSummary> {
	return {
		id: document.id,
		title: document.title,
		type: document.type,
		status: document.status,
		dreamingStatus: document.dreamingStatus,
		containerTag: document.containerTag,
		createdAt: iso(document.createdAt),
		updatedAt: iso(document.updatedAt),
		summary: document.summary,
		error: document.error,
	}
}

/** One line of a document list for the model. */
export function documentLine(document: DocumentRecord): string {
	const title = document.title ?? document.content.slice(0, 60).replace(/\s+/g, ' ')
	const failed = document.status === 'failed' && document.error ? ` (${document.error})` : ''
	return `- ${document.id} · ${document.type} · ${document.status}${failed} · ${title}`
}
