import type { McpContext } from '../context.ts'
import { factSection, profileOf } from '../profile-text.ts'
import { readable } from '../resources/readable.ts'
import { spaceLine, spacesOf } from '../spaces.ts'

const FACT_LIMIT = 8
const RECENT_SPACES = 3

/** The `context` prompt: compact context of the default space, and the other recently active spaces. */
export function register({ server, deps, caller }: McpContext) {
	server.registerPrompt(
		'context',
		{ title: 'Memory context', description: 'Attach compact context for the active space' },
		() =>
			readable(async () => {
				const tag = caller.defaultTag
				const [profile, spaces] = await Promise.all([profileOf(deps, caller, tag), spacesOf(deps, caller)])
				const facts = [
					...factSection('Stable Context', profile.static, FACT_LIMIT),
					...factSection('Recent Context', profile.dynamic, FACT_LIMIT),
				]
				const others = spaces.filter((space) => space.key !== tag).slice(0, RECENT_SPACES)
				const text = [
					'# Memory Context',
					`Active space: ${tag}`,
					'',
					...(facts.length > 0 ? facts : ['No profile facts are available for this space yet.', '']),
					...(others.length > 0 ? ['## Recently Active Spaces', ...others.map(spaceLine), ''] : []),
					'Use a space key as containerTag with the memory tools when the user asks about another space. Keep space contexts separate unless the user asks to combine them.',
				].join('\n')
				return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] }
			}),
	)
}
