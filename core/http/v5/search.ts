import { Elysia } from 'elysia'
import type { SearchHit } from '../../search/memory-search.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { namespaceFor, nullsAsAbsent } from './access.ts'
import { aggregateHits } from './aggregate.ts'
import { compileFilter } from './filter.ts'
import { documented, SearchResponse } from './responses.ts'
import { NamespaceParams, SearchBody, SearchQuery } from './schemas.ts'
import { includedDocument, iso, relatedMemory, relatedOf } from './serialize.ts'
import { V5_TAGS } from './tags.ts'

const DEFAULT_THRESHOLD = 0.3
const MODES = { hybrid: 'hybrid', memories: 'memories', chunks: 'documents' } as const
const round = (value: number) => Math.round(value * 10_000) / 10_000

interface Include {
	documents: boolean
	related: boolean
}

function resultOf(hit: SearchHit, include: Include) {
	if (hit.kind === 'chunk') {
		return {
			id: hit.chunk.id,
			chunk: hit.chunk.content,
			metadata: hit.document.metadata ?? {},
			similarity: round(hit.similarity),
			isLatest: true,
			isInference: false,
			system: { updatedAt: iso(hit.document.updatedAt), createdAt: iso(hit.chunk.createdAt) },
			...(include.documents ? { included: { document: includedDocument(hit.document) } } : {}),
		}
	}
	const { memory } = hit
	const expired = memory.forgetAfter !== null && memory.forgetAfter.getTime() <= Date.now()
	const related =
		include.related && hit.graph ? relatedOf(memory, { ...hit.graph, memories: hit.graph.memories.values() }) : null
	const document = include.documents ? hit.documents?.[0] : undefined
	const included = {
		...(related
			? {
					related: {
						parents: related.parents.map((r) => relatedMemory(r.memory, r.relation, r.version)),
						children: related.children.map((r) => relatedMemory(r.memory, r.relation, r.version)),
						siblings: related.siblings.map((r) => relatedMemory(r.memory, r.relation, r.version)),
					},
				}
			: {}),
		...(document ? { document: includedDocument(document) } : {}),
	}
	return {
		id: memory.id,
		memory: memory.memory,
		metadata: memory.metadata ?? {},
		similarity: round(hit.similarity),
		isLatest: memory.isLatest && !memory.isForgotten && !expired,
		isInference: memory.isInference,
		system: { updatedAt: iso(memory.updatedAt), createdAt: iso(memory.createdAt) },
		...(include.documents || include.related ? { included } : {}),
	}
}

/**
 * POST /ns/{namespace}/search. `rewriteQuery` is accepted and searches the query as written: the fused vector and
 * full-text ranking already matches paraphrases, and no language model runs offline to rewrite it.
 */
export function searchRoutes({ verify, memorySearch, usage }: RouteDeps) {
	return new Elysia()
		.use(bearerAuth(verify))
		.use(nullsAsAbsent())
		.post(
			'/ns/:namespace/search',
			async ({ params, body, query, scope, principal }) => {
				const started = performance.now()
				const namespace = namespaceFor(principal, params.namespace)
				await usage.assertWithinQuota(scope.orgId, 'searches')
				const include = { documents: body.include?.documents ?? false, related: body.include?.related ?? false }
				const rerank = body.rerank ?? 'none'
				const limit = body.limit ?? query.limit ?? 10
				// Aggregation merges overlapping results away: it reads more candidates to still fill `limit`.
				const candidates = rerank === 'aggregate' ? Math.min(limit * 3, 100) : limit
				const found = await memorySearch(scope, {
					q: body.query,
					containerTags: [namespace],
					filters: compileFilter(body.filter),
					threshold: body.threshold ?? DEFAULT_THRESHOLD,
					limit: candidates,
					mode: MODES[body.searchMode ?? query.searchMode ?? 'hybrid'],
					include: {
						documents: include.documents,
						summaries: false,
						relatedMemories: include.related,
						forgottenMemories: body.include?.forgotten ?? false,
						chunks: false,
					},
					rerank: rerank !== 'none',
				})
				const hits = rerank === 'aggregate' ? aggregateHits(found, limit) : found
				usage.record(scope.orgId, 'searches')
				return {
					results: hits.map((hit) => resultOf(hit, include)),
					searchTime: Math.round(performance.now() - started),
				}
			},
			{
				params: NamespaceParams,
				body: SearchBody,
				query: SearchQuery,
				detail: {
					tags: [V5_TAGS.search],
					operationId: 'postNsByNamespaceSearch',
					...documented(200, SearchResponse, 'Search results'),
					summary: 'Search memories and chunks of a namespace (hybrid, threshold 0.3 by default)',
				},
			},
		)
}
