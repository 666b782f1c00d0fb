import { z } from 'zod'
import { resolveTag } from '../caller.ts'
import type { McpContext } from '../context.ts'
import { containerTagInput, guarded, iso, limitInput, pageInput, pagination, READ_ONLY, success } from './kit.ts'

const input = z.object({ page: pageInput, limit: limitInput, containerTag: containerTagInput })
const output = z.object({
	containerTag: z.string(),
	memories: z.array(
		z.object({
			id: z.string(),
			memory: z.string(),
			version: z.number(),
			isStatic: z.boolean(),
			isInference: z.boolean(),
			rootMemoryId: z.string().nullable(),
			documentIds: z.array(z.string()),
			createdAt: z.string(),
			updatedAt: z.string(),
		}),
	),
	pagination,
})

/** listMemories: the latest, not forgotten memories of one space, newest first. */
export function register({ server, deps, caller }: McpContext) {
	server.registerTool(
		'listMemories',
		{
			title: 'List memories',
			description:
				'List the latest extracted memory entries in one space, including stable memory IDs, version information, and source document IDs. Use search_memory instead for semantic recall.',
			inputSchema: input,
			outputSchema: output,
			annotations: READ_ONLY,
		},
		(args) =>
			guarded(deps, 'listMemories', async () => {
				const tag = resolveTag(caller, args.containerTag)
				const { entries, total } = await deps.memories.list(caller.scope, {
					containerTags: [tag],
					page: args.page,
					limit: args.limit,
					sort: 'createdAt',
					order: 'desc',
				})
				// The list counts forgotten memories (flagged); they are not shown here.
				const memories = entries
					.map((entry) => entry.memory)
					.filter((memory) => memory.isLatest && !memory.isForgotten)
					.map((memory) => ({
						id: memory.id,
						memory: memory.memory,
						version: memory.version,
						isStatic: memory.isStatic,
						isInference: memory.isInference,
						rootMemoryId: memory.rootMemoryId,
						documentIds: memory.documentIds,
						createdAt: iso(memory.createdAt),
						updatedAt: iso(memory.updatedAt),
					}))
				const totalPages = Math.ceil(total / args.limit)
				const text =
					memories.length === 0
						? `No memories in ${tag}${args.page > 1 ? ` on page ${args.page}` : ''}.`
						: [
								`## Memories in ${tag} (page ${args.page} of ${totalPages})`,
								...memories.map((m) => `- ${m.id} (v${m.version}${m.isStatic ? ', static' : ''}): ${m.memory}`),
							].join('\n')
				return success(text, {
					containerTag: tag,
					memories,
					pagination: { currentPage: args.page, limit: args.limit, totalItems: total, totalPages },
				})
			}),
	)
}
