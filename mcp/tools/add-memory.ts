import { z } from 'zod'
import { badRequest, ServiceError } from '../../core/errors.ts'
import { resolveTag } from '../caller.ts'
import type { McpContext } from '../context.ts'
import { containerTagInput, failure, guarded, success, WRITES_MEMORY } from './kit.ts'

/** A forget that names no stored memory exactly takes the closest memory only when it is this similar. */
const FORGET_THRESHOLD = 0.85

const input = z.object({
	content: z.string().max(200_000).describe('The memory content to save or forget'),
	action: z.enum(['save', 'forget']).optional().default('save'),
	containerTag: containerTagInput,
})

const output = z.object({
	action: z.enum(['save', 'forget']),
	success: z.boolean(),
	containerTag: z.string(),
	message: z.string(),
	id: z.string().optional(),
	status: z.string().optional(),
})

/**
 * add_memory: `save` adds the content as a document (the same pipeline as POST /v3/documents) and answers at once
 * with its id and `queued`; `forget` forgets the memory with exactly that content, else the one closest to it.
 */
export function register({ server, deps, caller }: McpContext) {
	server.registerTool(
		'add_memory',
		{
			title: 'Save or forget a memory',
			description:
				"Add (save) or forget a memory in the user's space. Defaults to 'save'. Saving queues the content for processing and returns its document id; it is searchable once getDocument shows status done. Use 'forget' when information is outdated or the user asks to remove it.",
			inputSchema: input,
			outputSchema: output,
			annotations: WRITES_MEMORY,
		},
		(args) =>
			guarded(deps, 'add_memory', async () => {
				const tag = resolveTag(caller, args.containerTag)
				if (args.content.trim() === '') throw badRequest('content must not be blank')
				if (args.action === 'forget') return forget(args.content, tag)
				const document = await deps.documents.add(caller.scope, {
					content: args.content,
					containerTag: tag,
					metadata: { sm_source: 'mcp' },
				})
				const message =
					document.status === 'done'
						? `Already stored as document ${document.id} in ${tag} (same content; nothing new to process).`
						: `Queued as document ${document.id} in ${tag} (status ${document.status}); it becomes searchable once getDocument shows status done.`
				return success(message, {
					action: 'save',
					success: true,
					containerTag: tag,
					message,
					id: document.id,
					status: document.status,
				})
			}),
	)

	async function forget(content: string, tag: string) {
		try {
			const id = await deps.memories.forget(caller.scope, { containerTag: tag, content })
			const message = `Forgot memory ${id} in ${tag}.`
			return success(message, { action: 'forget', success: true, containerTag: tag, message, id })
		} catch (error) {
			if (!(error instanceof ServiceError && error.status === 404)) throw error
		}
		const result = await deps.memories.forgetMatching(caller.scope, {
			containerTag: tag,
			query: content,
			dryRun: false,
			threshold: FORGET_THRESHOLD,
			maxForget: 1,
		})
		const match = result.matches[0]
		if (!match) return failure(`No memory in ${tag} matches "${content.slice(0, 80)}"; nothing was forgotten.`)
		const message = `Forgot memory ${match.id} in ${tag}: "${match.memory}".`
		return success(message, { action: 'forget', success: true, containerTag: tag, message, id: match.id })
	}
}
