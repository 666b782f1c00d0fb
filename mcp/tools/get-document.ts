import { z } from 'zod'
import { notFound } from '../../core/errors.ts'
import { mayUse } from '../caller.ts'
import type { McpContext } from '../context.ts'
import { documentSummary, summaryOf } from './documents-output.ts'
import { guarded, READ_ONLY, success } from './kit.ts'

/** Longer content is cut here (with `contentTruncated`), so one call cannot flood the model's context. */
export const MAX_CONTENT_CHARS = 50_000

const input = z.object({
	documentId: z.string().min(1).max(255).describe('Document ID returned by listDocuments or a memory result'),
})
const output = z.object({
	document: documentSummary.extend({
		url: z.string().nullable(),
		content: z.string().nullable(),
		contentTruncated: z.boolean(),
	}),
})

/** getDocument: one document by id (or customId), with its status and its extracted text. */
export function register({ server, deps, caller }: McpContext) {
	server.registerTool(
		'getDocument',
		{
			title: 'Read a document',
			description:
				'Read one stored document by ID, including its processing status, summary and available content (long content is truncated).',
			inputSchema: input,
			outputSchema: output,
			annotations: READ_ONLY,
		},
		(args) =>
			guarded(deps, 'getDocument', async () => {
				const document = await deps.documents.get(
					caller.scope,
					args.documentId,
					caller.principal.containerTags ?? undefined,
				)
				if (!mayUse(caller, document.containerTag)) throw notFound('Document')
				const full = await deps.documents.text(document)
				const content = full.slice(0, MAX_CONTENT_CHARS)
				const contentTruncated = full.length > content.length
				const failed = document.status === 'failed' ? `\nError: ${document.error ?? 'unknown'}` : ''
				const text = [
					`# ${document.title ?? document.id}`,
					`ID: ${document.id} · type ${document.type} · status ${document.status} · space ${document.containerTag}${failed}`,
					...(document.summary ? ['', `Summary: ${document.summary}`] : []),
					'',
					content + (contentTruncated ? `\n\n[truncated at ${MAX_CONTENT_CHARS} of ${full.length} characters]` : ''),
				].join('\n')
				return success(text, {
					document: { ...summaryOf(document), url: document.url, content, contentTruncated },
				})
			}),
	)
}
