import { Elysia } from 'elysia'
import { readTags } from '../../auth/restriction.ts'
import { bearerAuth } from '../auth.ts'
import { parseQueryFilter } from '../filter-input.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import { MemorySearchBody, MemorySearchResponse } from '../schemas/search-v4.ts'
import { searchResult } from '../serialize-memory.ts'

const DEFAULT_THRESHOLD = 0.6

/** POST /v4/search: memories (default), hybrid (memories and chunks) or documents (chunks only). */
export function memorySearchRoutes({ verify, memorySearch }: RouteDeps) {
	return new Elysia().use(bearerAuth(verify)).post(
		'/v4/search',
		async ({ body, scope, principal }) => {
			const started = performance.now()
			const tags = readTags(principal, body.containerTag ? [body.containerTag] : body.containerTags)
			const include = {
				documents: body.include?.documents ?? false,
				summaries: body.include?.summaries ?? false,
				relatedMemories: body.include?.relatedMemories ?? false,
				forgottenMemories: body.include?.forgottenMemories ?? false,
				chunks: body.include?.chunks ?? false,
			}
			const hits = await memorySearch(scope, {
				q: body.q,
				containerTags: tags ?? null,
				filters: body.filters === undefined ? undefined : parseQueryFilter(body.filters),
				threshold: body.threshold ?? DEFAULT_THRESHOLD,
				limit: body.limit ?? 10,
				mode: body.searchMode ?? 'memories',
				include,
				rerank: body.rerank ?? false,
				filepath: body.filepath,
			})
			const results = hits.map((hit) => searchResult(hit, include))
			return { results, timing: Math.round(performance.now() - started), total: results.length }
		},
		{
			body: MemorySearchBody,
			response: { 200: MemorySearchResponse, ...errorResponses },
			detail: {
				tags: ['search'],
				summary:
					'Memory search: vector similarity and full-text rank fused, similarity calibrated to 0..1 (threshold 0.6 by default)',
			},
		},
	)
}
