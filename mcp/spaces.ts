import type { ContainerTagSummary } from '../core/plugins/container-storage.ts'
import { type McpCaller, mayUse } from './caller.ts'
import type { McpDeps } from './deps.ts'

export interface Space {
	key: string
	name: string
	documentCount: number
	memoryCount: number
	lastActivityAt: string | null
	isDefault: boolean
}

/** The caller's spaces (container tags), most recently active first; the default one is listed even when empty. */
export async function spacesOf(deps: McpDeps, caller: McpCaller): Promise<Space[]> {
	const tags = (await deps.containers.list(caller.scope)).filter((tag) => mayUse(caller, tag.containerTag))
	const spaces = tags.map((tag: ContainerTagSummary) => ({
		key: tag.containerTag,
		name: tag.name ?? tag.containerTag,
		documentCount: tag.documentCount,
		memoryCount: tag.memoryCount,
		lastActivityAt: tag.lastActivityAt,
		isDefault: tag.containerTag === caller.defaultTag,
	}))
	if (!spaces.some((space) => space.isDefault)) {
		spaces.push({
			key: caller.defaultTag,
			name: caller.defaultTag,
			documentCount: 0,
			memoryCount: 0,
			lastActivityAt: null,
			isDefault: true,
		})
	}
	return spaces.sort((a, b) => (b.lastActivityAt ?? '').localeCompare(a.lastActivityAt ?? ''))
}

export function spaceLine(space: Space): string {
	const name = space.name === space.key ? '' : ` "${space.name}"`
	const mark = space.isDefault ? ' (default)' : ''
	const activity = space.lastActivityAt ? `, last active ${space.lastActivityAt.slice(0, 10)}` : ''
	return `- ${space.key}${name}${mark}: ${space.documentCount} documents, ${space.memoryCount} memories${activity}`
}
