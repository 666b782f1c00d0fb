import type { McpContext } from '../context.ts'
import { spaceLine, spacesOf } from '../spaces.ts'
import { readable } from './readable.ts'

export const SPACES_URI = 'supermemory://spaces'

/** supermemory://spaces: the caller's spaces, the default one marked. */
export function register({ server, deps, caller }: McpContext) {
	server.registerResource(
		'spaces',
		SPACES_URI,
		{ title: 'My Spaces', description: 'The spaces (container tags) this key can use', mimeType: 'text/markdown' },
		(uri) =>
			readable(async () => {
				const spaces = await spacesOf(deps, caller)
				const text = ['# My Spaces', '', ...spaces.map(spaceLine)].join('\n')
				return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] }
			}),
	)
}
