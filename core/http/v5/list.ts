import { Elysia } from 'elysia'
import { badRequest } from '../../errors.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { namespaceFor, nullsAsAbsent } from './access.ts'
import { compileFilter } from './filter.ts'
import { documented, ListResponse } from './responses.ts'
import { ListBody, ListParams, ListQuery } from './schemas.ts'
import { chunkOut, documentListItem, memoryOut } from './serialize.ts'
import { V5_TAGS } from './tags.ts'

/** POST /ns/{namespace}/list/{type}: one page of documents, chunks or memories (the other two arrays empty). */
export function listRoutes({ verify, documents, memories }: RouteDeps) {
	return new Elysia()
		.use(bearerAuth(verify))
		.use(nullsAsAbsent())
		.post(
			'/ns/:namespace/list/:type',
			async ({ params, query, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const page = query.page ?? 1
				const limit = query.limit ?? 10
				const sort = query.sort ?? 'createdAt'
				const order = query.order ?? 'desc'
				if (sort === 'position' && params.type !== 'chunks') throw badRequest('sort=position applies to chunks only')
				const filters = compileFilter(body?.filter)
				const out = { documents: [] as unknown[], chunks: [] as unknown[], memories: [] as unknown[] }
				let total = 0
				if (params.type === 'documents') {
					const found = await documents.list(scope, {
						containerTags: [namespace],
						filters,
						page,
						limit,
						sort: sort as 'createdAt' | 'updatedAt',
						order,
					})
					out.documents = found.documents.map(documentListItem)
					total = found.total
				} else if (params.type === 'chunks') {
					const found = await documents.chunksInContainer(scope, namespace, { filters, page, limit, sort, order })
					out.chunks = found.chunks.map((chunk) => ({ ...chunkOut(chunk), documentId: chunk.documentId }))
					total = found.total
				} else {
					const found = await memories.list(scope, {
						containerTags: [namespace],
						filters,
						page,
						limit,
						sort: sort as 'createdAt' | 'updatedAt',
						order,
						includeForgotten: body?.include?.forgotten ?? false,
					})
					out.memories = found.entries.map((entry) => memoryOut(entry.memory))
					total = found.total
				}
				return {
					...out,
					pagination: { currentPage: page, limit, totalItems: total, totalPages: Math.ceil(total / limit) },
				}
			},
			{
				params: ListParams,
				query: ListQuery,
				body: ListBody,
				detail: {
					tags: [V5_TAGS.list],
					operationId: 'postNsByNamespaceListByType',
					...documented(200, ListResponse, 'A page of documents, chunks or memories'),
					summary: 'A page of documents, chunks or memories (?page, limit, sort, order; body filter)',
				},
			},
		)
}
