import { z } from 'zod'
import { resolveTag } from '../caller.ts'
import type { McpContext } from '../context.ts'
import { documentLine, documentSummary, summaryOf } from './documents-output.ts'
import { containerTagInput, guarded, limitInput, pageInput, pagination, READ_ONLY, success } from './kit.ts'

const input = z.object({ page: pageInput, limit: limitInput, containerTag: containerTagInput })
const output = z.object({ containerTag: z.string(), documents: z.array(documentSummary), pagination })

/** listDocuments: one space's documents, newest first, with their processing status (no content). */
export function register({ server, deps, caller }: McpContext) {
	server.registerTool(
		'listDocuments',
		{
			title: 'List documents',
			description:
				'List documents in one space with their IDs, titles, types, processing status, dates, and summaries. This does not return full document content; use getDocument with an ID to read one.',
			inputSchema: input,
			outputSchema: output,
			annotations: READ_ONLY,
		},
		(args) =>
			guarded(deps, 'listDocuments', async () => {
				const tag = resolveTag(caller, args.containerTag)
				const { documents, total } = await deps.documents.list(caller.scope, {
					containerTags: [tag],
					page: args.page,
					limit: args.limit,
					sort: 'createdAt',
					order: 'desc',
				})
				const totalPages = Math.ceil(total / args.limit)
				const text =
					documents.length === 0
						? `No documents in ${tag}${args.page > 1 ? ` on page ${args.page}` : ''}.`
						: [
								`## Documents in ${tag} (page ${args.page} of ${totalPages}, ${total} in all)`,
								...documents.map(documentLine),
							].join('\n')
				return success(text, {
					containerTag: tag,
					documents: documents.map(summaryOf),
					pagination: { currentPage: args.page, limit: args.limit, totalItems: total, totalPages },
				})
			}),
	)
}
