import { z } from 'zod'
import type { McpContext } from '../context.ts'
import { guarded, READ_ONLY, success } from './kit.ts'

const output = z.object({
	userId: z.string(),
	name: z.string(),
	role: z.string(),
	accessType: z.enum(['full', 'restricted']),
	activeSpace: z.string(),
	assignedSpaces: z.array(z.string()).nullable(),
	organization: z.object({ id: z.string(), name: z.string() }),
	keyId: z.string(),
})

/** whoAmI: the API key behind the connection, its organization and the spaces it may use. */
export function register({ server, deps, caller }: McpContext) {
	server.registerTool(
		'whoAmI',
		{
			title: 'Who am I',
			description:
				'Get the current account context: the API key and organization behind this connection, its access (full or restricted to some spaces) and the default space.',
			inputSchema: z.object({}),
			outputSchema: output,
			annotations: READ_ONLY,
		},
		() =>
			guarded(deps, 'whoAmI', async () => {
				const { principal, allowedTags, defaultTag } = caller
				const accessType = allowedTags ? 'restricted' : 'full'
				const text = [
					`Organization: ${principal.orgName} (${principal.orgId})`,
					`API key: ${principal.keyId}`,
					`Access: ${accessType === 'full' ? 'every space of the organization' : `only ${allowedTags!.join(', ')}`}`,
					`Default space: ${defaultTag}`,
				].join('\n')
				return success(text, {
					userId: principal.keyId,
					name: principal.orgName,
					role: 'api_key',
					accessType,
					activeSpace: defaultTag,
					assignedSpaces: allowedTags,
					organization: { id: principal.orgId, name: principal.orgName },
					keyId: principal.keyId,
				})
			}),
	)
}
