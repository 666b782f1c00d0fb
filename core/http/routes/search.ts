import { Elysia } from 'elysia'
import { readTags } from '../../auth/restriction.ts'
import { bearerAuth } from '../auth.ts'
import { parseQueryFilter } from '../filter-input.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import { DocumentSearchBody, DocumentSearchResponse } from '../schemas/search.ts'
import { visibleDocument } from './documents.ts'

const round = (value: number) => Math.round(value * 10_000) / 10_000

export function searchRoutes({ verify, documentSearch, documents, usage }: RouteDeps) {
	return new Elysia().use(bearerAuth(verify)).post(
		'/v3/search',
		async ({ body, scope, principal }) => {
			const started = performance.now()
			const tags = readTags(principal, body.containerTag ? [body.containerTag] : body.containerTags)
			// Resolved as a document read is: another tag's document is "not found", exactly as an unknown one.
			const docId =
				body.docId === undefined ? undefined : (await visibleDocument(documents, principal, scope, body.docId)).id
			await usage.assertWithinQuota(scope.orgId, 'searches')
			usage.record(scope.orgId, 'searches')
			const hits = await documentSearch(scope, {
				q: body.q,
				containerTags: tags ?? null,
				filters: body.filters === undefined ? undefined : parseQueryFilter(body.filters),
				limit: body.limit ?? 10,
				chunkThreshold: body.chunkThreshold ?? 0,
				onlyMatchingChunks: body.onlyMatchingChunks ?? true,
				includeFullDocs: body.includeFullDocs ?? false,
				includeSummary: body.includeSummary ?? false,
				rerank: body.rerank ?? false,
				docId,
				filepath: body.filepath,
			})
			const fullDocs = body.includeFullDocs
				? await Promise.all(hits.map(({ document }) => documents.text(document)))
				: null
			const results = hits.map(({ document, score, chunks }, i) => ({
				documentId: document.id,
				title: document.title,
				type: document.type,
				score: round(score),
				metadata: document.metadata,
				createdAt: document.createdAt.toISOString(),
				updatedAt: document.updatedAt.toISOString(),
				chunks: chunks.map(({ chunk, score: chunkScore, isRelevant }) => ({
					content: chunk.content,
					isRelevant,
					score: round(chunkScore),
					position: chunk.position,
				})),
				...(body.includeSummary ? { summary: document.summary } : {}),
				...(fullDocs ? { content: fullDocs[i] } : {}),
			}))
			return { results, timing: Math.round(performance.now() - started), total: results.length }
		},
		{
			body: DocumentSearchBody,
			response: { 200: DocumentSearchResponse, ...errorResponses },
			detail: {
				tags: ['search'],
				summary: 'Document search: vector similarity and full-text rank fused by reciprocal rank fusion',
			},
		},
	)
}
