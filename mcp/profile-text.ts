import type { McpCaller } from './caller.ts'
import type { McpDeps } from './deps.ts'

export interface ProfileFacts {
	static: string[]
	dynamic: string[]
}

/** The static and dynamic profile facts of a space (counted as a profile call, as POST /v4/profile is). */
export async function profileOf(deps: McpDeps, caller: McpCaller, tag: string): Promise<ProfileFacts> {
	const answer = await deps.profiles.profile(caller.scope, { containerTag: tag, include: ['static', 'dynamic'] })
	deps.usage.record(caller.scope.orgId, 'profiles')
	return { static: answer.profile.static ?? [], dynamic: answer.profile.dynamic ?? [] }
}

/** A Markdown section of at most `limit` facts, or nothing when there are none. */
export function factSection(heading: string, facts: string[], limit: number): string[] {
	if (facts.length === 0) return []
	const more = facts.length > limit ? [`- … and ${facts.length - limit} more`] : []
	return [`## ${heading}`, ...facts.slice(0, limit).map((fact) => `- ${fact}`), ...more, '']
}
