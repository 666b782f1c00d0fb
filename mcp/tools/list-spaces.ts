import { z } from 'zod'
import type { McpContext } from '../context.ts'
import { spaceLine, spacesOf } from '../spaces.ts'
import { guarded, READ_ONLY, success } from './kit.ts'

const output = z.object({
	defaultSpace: z.string(),
	spaces: z.array(
		z.object({
			key: z.string(),
			name: z.string(),
			documentCount: z.number(),
			memoryCount: z.number(),
			lastActivityAt: z.string().nullable(),
			isDefault: z.boolean(),
		}),
	),
})

/** listSpaces: the container tags the key can use, with counts and last activity. */
export function register({ server, deps, caller }: McpContext) {
	server.registerTool(
		'listSpaces',
		{
			title: 'List spaces',
			description:
				"List the spaces (container tags) available to the user, with each space's key, name, document and memory counts, and last activity. Use this first to resolve a named space to the key other tools take as containerTag.",
			inputSchema: z.object({}),
			outputSchema: output,
			annotations: READ_ONLY,
		},
		() =>
			guarded(deps, 'listSpaces', async () => {
				const spaces = await spacesOf(deps, caller)
				return success(['## Spaces', ...spaces.map(spaceLine)].join('\n'), { defaultSpace: caller.defaultTag, spaces })
			}),
	)
}
