import { Elysia } from 'elysia'
import type { Principal } from '../../auth/verifier.ts'
import type { DocumentRecord, Metadata, Scope } from '../../domain/types.ts'
import { ServiceError } from '../../errors.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { includeList, namespaceFor, nullsAsAbsent } from './access.ts'
import { BatchAddResult, DeleteDocumentsResult, Document, DocumentRef, documented } from './responses.ts'
import {
	AddBody,
	BatchBody,
	DeleteDocumentsBody,
	DocumentParams,
	IncludeQuery,
	NamespaceParams,
	UpdateBody,
} from './schemas.ts'
import { chunkOut, documentOut, documentRef, memoryOut } from './serialize.ts'
import { V5_TAGS } from './tags.ts'

type DocumentFields = {
	content: string
	id?: string
	supportingContext?: string
	metadata?: Metadata
	group?: Metadata
	date?: string
}

/**
 * v5's document fields as the document service's: `date` is kept as the metadata `documentDate` memory formation
 * dates relative expressions by, `group` values join the metadata (filterable) and become the document's formation
 * scope, `supportingContext` is the document's entity context.
 */
function metadataOf(fields: { metadata?: Metadata; group?: Metadata; date?: string }): Metadata | undefined {
	if (!fields.metadata && !fields.group && fields.date === undefined) return undefined
	return { ...fields.group, ...fields.metadata, ...(fields.date !== undefined ? { documentDate: fields.date } : {}) }
}

const CONCURRENCY = 8
/**
 * An add without an id that repeats one made this recently is the SDK retrying (it retries POSTs on timeouts, 409,
 * 429 and 5xx: three attempts, each up to a 60 s timeout and a back-off capped at 60 s): the first document answers.
 */
const RETRY_WINDOW_SECONDS = 600

export function documentRoutes({ verify, documents, memories }: RouteDeps) {
	async function add(
		scope: Scope,
		namespace: string,
		fields: DocumentFields,
		options: { taskType?: 'memory' | 'superrag'; dreaming?: 'dynamic' | 'instant' },
	): Promise<DocumentRecord> {
		return documents.add(scope, {
			content: fields.content,
			containerTag: namespace,
			customId: fields.id,
			metadata: metadataOf(fields),
			entityContext: fields.supportingContext,
			formationScope: fields.group,
			taskType: options.taskType,
			dreaming: options.dreaming,
			append: true,
			...(fields.id === undefined ? { retryWindowSeconds: RETRY_WINDOW_SECONDS } : {}),
		})
	}

	const find = (scope: Scope, principal: Principal, namespace: string, id: string) =>
		documents.getInContainer(scope, namespaceFor(principal, namespace), id)

	return new Elysia()
		.use(bearerAuth(verify))
		.use(nullsAsAbsent())
		.post(
			'/ns/:namespace/document',
			async ({ params, body, query, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				return documentRef(await add(scope, namespace, body, { ...query, ...body }))
			},
			{
				params: NamespaceParams,
				body: AddBody,
				detail: {
					tags: [V5_TAGS.documents],
					operationId: 'postNsByNamespaceDocument',
					...documented(200, DocumentRef, 'Accepted for processing'),
					summary: 'Add text or a URL; re-sending an id appends to that document and keeps its history',
				},
			},
		)
		.post(
			'/ns/:namespace/document/batch',
			async ({ params, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const items = body.documents
				const results: { id: string; status: string; error?: string; details?: string; url?: string }[] = new Array(
					items.length,
				)
				let next = 0
				const worker = async () => {
					for (let index = next++; index < items.length; index = next++) {
						const item = items[index]!
						try {
							results[index] = documentRef(await add(scope, namespace, item, body))
						} catch (error) {
							const known = error instanceof ServiceError
							results[index] = {
								id: item.id ?? '',
								status: 'error',
								error: known ? error.message : 'Internal server error',
								...(known && error.details ? { details: error.details } : {}),
								...(/^https?:\/\//i.test(item.content.trim()) ? { url: item.content.trim() } : {}),
							}
						}
					}
				}
				await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker))
				const accepted = results.filter((result) => result.status !== 'error')
				const failed = results.filter((result) => result.status === 'error')
				return { results: [...accepted, ...failed], count: accepted.length, failed: failed.length }
			},
			{
				params: NamespaceParams,
				body: BatchBody,
				detail: {
					tags: [V5_TAGS.documents],
					operationId: 'postNsByNamespaceDocumentBatch',
					...documented(200, BatchAddResult, 'Batch accepted for processing'),
					summary: 'Add or append up to 600 documents; accepted results first, then failed ones',
				},
			},
		)
		.delete(
			'/ns/:namespace/document',
			async ({ params, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const errors: { id: string; error: string }[] = []
				const found = new Map<string, string>()
				for (const id of new Set(body.ids)) {
					const document = await documents.getInContainer(scope, namespace, id).catch(() => null)
					if (document) found.set(document.id, id)
					else errors.push({ id, error: 'Document not found' })
				}
				const { deletedIds, missingIds } = await documents.deleteMany(scope, { ids: [...found.keys()] })
				for (const id of missingIds) errors.push({ id: found.get(id) ?? id, error: 'Document not found' })
				return { count: deletedIds.length, errors }
			},
			{
				params: NamespaceParams,
				body: DeleteDocumentsBody,
				detail: {
					tags: [V5_TAGS.documents],
					operationId: 'deleteNsByNamespaceDocument',
					...documented(200, DeleteDocumentsResult, 'Per-id results'),
					summary: 'Delete up to 100 documents (internal or caller ids) and what was derived from them',
				},
			},
		)
		.get(
			'/ns/:namespace/document/:id',
			async ({ params, query, scope, principal }) => {
				const include = includeList(query.include ?? query.attach, ['chunks', 'memories'] as const)
				const document = await find(scope, principal, params.namespace, params.id)
				const [content, chunks, formed] = await Promise.all([
					documents.shownContent(document),
					include.has('chunks') ? documents.chunks(scope, document.id) : null,
					include.has('memories') ? memories.ofDocument(scope, document.id) : null,
				])
				return {
					...documentOut(document, content),
					...(chunks ? { chunks: chunks.chunks.map(chunkOut) } : {}),
					...(formed ? { memories: formed.map(memoryOut) } : {}),
				}
			},
			{
				params: DocumentParams,
				query: IncludeQuery,
				detail: {
					tags: [V5_TAGS.documents],
					operationId: 'getNsByNamespaceDocumentById',
					...documented(200, Document, 'The document', [404]),
					summary: 'A document by internal or caller id, with ?include=chunks,memories',
				},
			},
		)
		.patch(
			'/ns/:namespace/document/:id',
			async ({ params, body, scope, principal }) => {
				const document = await find(scope, principal, params.namespace, params.id)
				const metadata =
					body.metadata || body.group || body.date !== undefined
						? { ...document.metadata, ...metadataOf(body) }
						: undefined
				const updated = await documents.update(scope, document.id, {
					content: body.content,
					metadata,
					taskType: body.taskType,
					entityContext: body.supportingContext,
					formationScope: body.group,
					dreaming: body.dreaming,
				})
				return documentRef(updated)
			},
			{
				params: DocumentParams,
				body: UpdateBody,
				detail: {
					tags: [V5_TAGS.documents],
					operationId: 'patchNsByNamespaceDocumentById',
					...documented(200, DocumentRef, 'Document updated', [404]),
					summary: 'Replace the content and/or fields of a document (changed content is reprocessed)',
				},
			},
		)
}
