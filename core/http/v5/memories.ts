import { Elysia } from 'elysia'
import { notFound } from '../../errors.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { includeList, namespaceFor, nullsAsAbsent } from './access.ts'
import { documented, ForgetResult, MemoryDetails } from './responses.ts'
import { ForgetBody, ForgetSemanticBody, MemoryParams, MemoryQuery, NamespaceParams } from './schemas.ts'
import { includedDocument, memoryOut, relatedMemory, relatedOf } from './serialize.ts'
import { V5_TAGS } from './tags.ts'

/** How close a memory must be to a semantic forget's description (the v4 forget-matching default). */
const SEMANTIC_THRESHOLD = 0.5
const SEMANTIC_MAX = 100

/** Forget by ids or by description (soft: the memory is flagged, its history kept), and read one memory. */
export function memoryRoutes({ verify, memories, documents }: RouteDeps) {
	return new Elysia()
		.use(bearerAuth(verify))
		.use(nullsAsAbsent())
		.delete(
			'/ns/:namespace/memories',
			async ({ params, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const ids = [...new Set(body.ids)]
				const result = await memories.forgetMatching(scope, {
					containerTag: namespace,
					ids,
					dryRun: false,
					threshold: 0,
					maxForget: ids.length,
				})
				const forgotten = new Set(result.matches.map((match) => match.id))
				return {
					count: result.matches.length,
					errors: ids
						.filter((id) => !forgotten.has(id))
						.map((id) => ({ id, error: 'Memory not found in this namespace, or already forgotten' })),
					matches: result.matches.map(({ id, memory }) => ({ id, memory })),
				}
			},
			{
				params: NamespaceParams,
				body: ForgetBody,
				detail: {
					tags: [V5_TAGS.memories],
					operationId: 'deleteNsByNamespaceMemories',
					...documented(200, ForgetResult, 'Exact memory forget completed'),
					summary: 'Forget up to 500 memories by id (soft; history kept); per-id errors',
				},
			},
		)
		.delete(
			'/ns/:namespace/memories/semantic',
			async ({ params, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const result = await memories.forgetMatching(scope, {
					containerTag: namespace,
					query: body.query,
					dryRun: body.dryRun,
					threshold: SEMANTIC_THRESHOLD,
					maxForget: SEMANTIC_MAX,
				})
				return {
					count: result.matches.length,
					errors: [],
					matches: result.matches.map(({ id, memory }) => ({ id, memory })),
				}
			},
			{
				params: NamespaceParams,
				body: ForgetSemanticBody,
				detail: {
					tags: [V5_TAGS.memories],
					operationId: 'deleteNsByNamespaceMemoriesSemantic',
					...documented(200, ForgetResult, 'Matching memories previewed or forgotten'),
					summary: 'Forget, or with dryRun preview, the memories matching a description',
				},
			},
		)
		.get(
			'/ns/:namespace/memories/:id',
			async ({ params, query, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const include = includeList(query.include, ['related', 'documents'] as const)
				const memory = await memories.get(scope, params.id)
				if (!memory || memory.containerTag !== namespace) throw notFound('Memory')
				const limit = query.relatedLimit ?? 10
				const withDocuments = include.has('documents')
				const sourceOf = async (documentIds: string[]) => {
					const first = documentIds[0]
					if (first === undefined) return undefined
					const document = await documents.getInContainer(scope, namespace, first).catch(() => null)
					return document ? includedDocument(document) : undefined
				}
				const included: Record<string, unknown> = {}
				if (include.has('related')) {
					const graph = await memories.graph(scope, [memory.id])
					const related = relatedOf(memory, graph, limit)
					const item = async (r: (typeof related.parents)[number]) => {
						const out = relatedMemory(r.memory, r.relation, r.version)
						const document = withDocuments ? await sourceOf(r.memory.documentIds) : undefined
						return document ? { ...out, document } : out
					}
					included.related = {
						parents: await Promise.all(related.parents.map(item)),
						children: await Promise.all(related.children.map(item)),
						siblings: await Promise.all(related.siblings.map(item)),
					}
				}
				if (withDocuments) {
					const document = await sourceOf(memory.documentIds)
					if (document) included.document = document
				}
				return { ...memoryOut(memory), ...(include.size > 0 ? { included } : {}) }
			},
			{
				params: MemoryParams,
				query: MemoryQuery,
				detail: {
					tags: [V5_TAGS.memories],
					operationId: 'getNsByNamespaceMemoriesById',
					...documented(200, MemoryDetails, 'The memory', [404]),
					summary: 'A memory, with ?include=related,documents (relatedLimit per list)',
				},
			},
		)
}
