import { z } from 'zod'
import type { SearchHit } from '../../core/search/memory-search.ts'
import { resolveTag } from '../caller.ts'
import type { McpContext } from '../context.ts'
import { containerTagInput, guarded, percent, READ_ONLY, success } from './kit.ts'

/** As POST /v4/search: the calibrated similarity a result needs. */
const THRESHOLD = 0.6
const LIMIT = 10
const NO_INCLUDES = {
	documents: false,
	summaries: false,
	relatedMemories: false,
	forgottenMemories: false,
	chunks: false,
}

const input = z.object({
	query: z.string().min(1).max(1000).describe('The search query to find relevant memories'),
	includeProfile: z.boolean().optional().default(true).describe("Also return the space's profile summary"),
	containerTag: containerTagInput,
})

const output = z.object({
	query: z.string(),
	containerTag: z.string().nullable(),
	profile: z.object({ static: z.array(z.string()), dynamic: z.array(z.string()) }).optional(),
	results: z.array(
		z.object({
			id: z.string(),
			text: z.string(),
			similarity: z.number(),
			title: z.string().optional(),
			type: z.enum(['memory', 'chunk']),
			documentId: z.string().optional(),
		}),
	),
	total: z.number(),
	timing: z.number(),
})

function resultOf(hit: SearchHit) {
	const similarity = Math.round(hit.similarity * 10_000) / 10_000
	if (hit.kind === 'memory') return { id: hit.memory.id, text: hit.memory.memory, similarity, type: 'memory' as const }
	return {
		id: hit.chunk.id,
		text: hit.chunk.content,
		similarity,
		...(hit.document.title ? { title: hit.document.title } : {}),
		type: 'chunk' as const,
		documentId: hit.document.id,
	}
}

/** search_memory: memories and document chunks (hybrid search) of one space, with its profile by default. */
export function register({ server, deps, caller }: McpContext) {
	server.registerTool(
		'search_memory',
		{
			title: 'Search memory',
			description:
				"Search memories in one space with a natural-language query. Returns relevant memories plus that space's profile summary. When the user names a space, resolve it with listSpaces and pass containerTag; otherwise the default space is used.",
			inputSchema: input,
			outputSchema: output,
			annotations: READ_ONLY,
		},
		(args) =>
			guarded(deps, 'search_memory', async () => {
				const started = performance.now()
				const tag = resolveTag(caller, args.containerTag)
				const { orgId } = caller.scope
				await deps.usage.assertWithinQuota(orgId, 'searches')
				const [answer, hits] = await Promise.all([
					args.includeProfile
						? deps.profiles.profile(caller.scope, { containerTag: tag, include: ['static', 'dynamic'] })
						: undefined,
					deps.memorySearch(caller.scope, {
						q: args.query,
						containerTags: [tag],
						threshold: THRESHOLD,
						limit: LIMIT,
						mode: 'hybrid',
						include: NO_INCLUDES,
						rerank: false,
					}),
				])
				deps.usage.record(orgId, 'searches')
				if (answer) deps.usage.record(orgId, 'profiles')
				const profile = answer
					? { static: answer.profile.static ?? [], dynamic: answer.profile.dynamic ?? [] }
					: undefined
				const results = hits.map(resultOf)
				const lines: string[] = []
				if (profile?.static.length) lines.push('## Profile', ...profile.static.map((fact) => `- ${fact}`), '')
				if (profile?.dynamic.length) lines.push('## Recent context', ...profile.dynamic.map((fact) => `- ${fact}`), '')
				if (results.length > 0) {
					lines.push('## Matching memories', ...results.map((r) => `- [${percent(r.similarity)}] ${r.text}`))
				} else {
					lines.push(`No matching memories found in ${tag}.`)
				}
				return success(lines.join('\n'), {
					query: args.query,
					containerTag: tag,
					...(profile ? { profile } : {}),
					results,
					total: results.length,
					timing: Math.round(performance.now() - started),
				})
			}),
	)
}
