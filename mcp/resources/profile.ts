import type { McpContext } from '../context.ts'
import { factSection, profileOf } from '../profile-text.ts'
import { readable } from './readable.ts'

export const PROFILE_URI = 'supermemory://profile'

/** supermemory://profile: the default space's profile facts, as Markdown. */
export function register({ server, deps, caller }: McpContext) {
	server.registerResource(
		'profile',
		PROFILE_URI,
		{
			title: 'Profile',
			description: 'Profile facts (static and dynamic) of the default space',
			mimeType: 'text/markdown',
		},
		(uri) =>
			readable(async () => {
				const profile = await profileOf(deps, caller, caller.defaultTag)
				const sections = [...factSection('Static', profile.static, 50), ...factSection('Dynamic', profile.dynamic, 20)]
				const text = [
					`# Profile of ${caller.defaultTag}`,
					'',
					...(sections.length > 0 ? sections : ['No profile facts yet.']),
				].join('\n')
				return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] }
			}),
	)
}
