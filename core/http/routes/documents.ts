import { Elysia, t } from 'elysia'
import { assertTagAllowed, canSeeTag, isRestricted, readTags, writeTag } from '../../auth/restriction.ts'
import type { Principal } from '../../auth/verifier.ts'
import type { DocumentRecord, Scope } from '../../domain/types.ts'
import { badRequest, notFound, ServiceError } from '../../errors.ts'
import { bearerAuth } from '../auth.ts'
import { parseQueryFilter } from '../filter-input.ts'
import { oneTag } from '../one-tag.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import {
	AddDocumentBody,
	BulkDeleteBody,
	BulkDeleteResponse,
	ChunksResponse,
	DocumentAck,
	DocumentDetail,
	ListDocumentsBody,
	ListDocumentsResponse,
	ProcessingResponse,
	UpdateDocumentBody,
} from '../schemas/documents.ts'
import { chunkOut, documentDetail, documentSummary } from '../serialize.ts'
import { memoryOfDocument } from '../serialize-memory.ts'

/** The document with the memories formed from it (the key is left out until there are some). */
async function withMemories(
	document: DocumentRecord,
	scope: Scope,
	{ documents, memories }: Pick<RouteDeps, 'documents' | 'memories'>,
) {
	const formed = await memories.ofDocument(scope, document.id)
	return {
		...documentDetail(document, await documents.shownContent(document)),
		...(formed.length > 0 ? { memories: formed.map(memoryOfDocument) } : {}),
	}
}

const MAX_PAGE_SIZE = 1100

/** The published API sends one tag as `containerTag` or, deprecated, as `containerTags`; several are refused. */
export function singleTag(body: { containerTag?: string; containerTags?: string[] }): string | undefined {
	return oneTag(body.containerTag, body.containerTags)
}

function positiveInt(value: number | string | undefined, field: string, fallback: number, max: number): number {
	if (value === undefined) return fallback
	const number = Number(value)
	if (!Number.isInteger(number) || number < 1 || number > max)
		throw badRequest(`${field} must be an integer from 1 to ${max}`)
	return number
}

const detail = { tags: ['documents'] }

/**
 * A document the key may see, resolved once: a restricted key's reference (id or customId) is looked up among its
 * tags' documents only, so one of another tag is "not found". Routes act on the returned record's id, never on the
 * reference again: a customId resolved twice could name another document the second time.
 */
export async function visibleDocument(
	documents: RouteDeps['documents'],
	principal: Principal,
	scope: Scope,
	id: string,
): Promise<DocumentRecord> {
	const document = await documents.get(scope, id, principal.containerTags ?? undefined)
	if (!canSeeTag(principal, document.containerTag)) throw notFound('Document')
	return document
}

/** The documents a restricted key may delete, resolved once to their ids; the rest reported as missing. */
async function visibleIds(documents: RouteDeps['documents'], principal: Principal, scope: Scope, ids: string[]) {
	if (!isRestricted(principal)) return { ids, hidden: [] as string[] }
	const visible: string[] = []
	const hidden: string[] = []
	for (const id of ids) {
		const document = await visibleDocument(documents, principal, scope, id).catch(() => null)
		if (document) visible.push(document.id)
		else hidden.push(id)
	}
	return { ids: visible, hidden }
}

export function documentRoutes({ verify, documents, memories }: RouteDeps) {
	return new Elysia({ prefix: '/v3/documents' })
		.use(bearerAuth(verify))
		.post(
			'',
			async ({ body: { filterByMetadata, ...body }, scope, principal }) => {
				const document = await documents.add(scope, {
					...body,
					containerTag: writeTag(principal, singleTag(body)),
					formationScope: filterByMetadata,
				})
				return { id: document.id, status: document.status }
			},
			{
				body: AddDocumentBody,
				response: { 200: DocumentAck, ...errorResponses },
				detail: { ...detail, summary: 'Add a document (text, URL or structured content); customId upserts' },
			},
		)
		.post(
			'/list',
			async ({ body, scope, principal }) => {
				const page = positiveInt(body.page, 'page', 1, 1_000_000)
				const limit = positiveInt(body.limit, 'limit', 10, MAX_PAGE_SIZE)
				const tags = readTags(principal, body.containerTags ?? (body.containerTag ? [body.containerTag] : undefined))
				const { documents: found, total } = await documents.list(scope, {
					containerTags: tags,
					filters: body.filters === undefined ? undefined : parseQueryFilter(body.filters),
					filepath: body.filepath,
					page,
					limit,
					sort: body.sort ?? 'createdAt',
					order: body.order ?? 'desc',
				})
				const items = await Promise.all(
					found.map(async (document) => ({
						...documentSummary(document),
						...(body.includeContent ? { content: await documents.shownContent(document) } : {}),
					})),
				)
				return {
					memories: items,
					pagination: { currentPage: page, limit, totalItems: total, totalPages: Math.ceil(total / limit) },
					results: items,
					totalCount: total,
				}
			},
			{
				body: ListDocumentsBody,
				response: { 200: ListDocumentsResponse, ...errorResponses },
				detail: { ...detail, summary: 'List documents with pagination, sorting and filters' },
			},
		)
		.get(
			'/processing',
			async ({ scope, principal }) => {
				const found = (await documents.processing(scope)).filter((document) =>
					canSeeTag(principal, document.containerTag),
				)
				return { documents: found.map(documentSummary), totalCount: found.length }
			},
			{
				response: { 200: ProcessingResponse, ...errorResponses },
				detail: { ...detail, summary: 'Documents not yet done or failed' },
			},
		)
		.delete(
			'/bulk',
			async ({ body, scope, principal }) => {
				const selectors = [body.ids, body.containerTags, body.filepath].filter((value) => value !== undefined)
				if (selectors.length !== 1) throw badRequest('give exactly one of ids, containerTags or filepath')
				if (body.ids) {
					const { ids, hidden } = await visibleIds(documents, principal, scope, body.ids)
					const { deletedIds, missingIds } = await documents.deleteMany(scope, { ids })
					return {
						success: true,
						deletedCount: deletedIds.length,
						errors: [...hidden, ...missingIds].map((id) => ({ id, error: 'Document not found' })),
					}
				}
				if (isRestricted(principal) && body.filepath !== undefined) {
					throw new ServiceError(403, 'Forbidden', 'a key restricted to container tags deletes by ids or containerTags')
				}
				if (body.containerTags) {
					for (const tag of body.containerTags) assertTagAllowed(principal, tag)
					const { deletedIds } = await documents.deleteMany(scope, { containerTags: body.containerTags })
					return { success: true, deletedCount: deletedIds.length, containerTags: body.containerTags }
				}
				const { deletedIds } = await documents.deleteMany(scope, { filepath: body.filepath! })
				return { success: true, deletedCount: deletedIds.length }
			},
			{
				body: BulkDeleteBody,
				response: { 200: BulkDeleteResponse, ...errorResponses },
				detail: { ...detail, summary: 'Delete documents by ids, by container tags or by filepath' },
			},
		)
		.get(
			'/:id',
			async ({ params, scope, principal }) =>
				withMemories(await visibleDocument(documents, principal, scope, params.id), scope, { documents, memories }),
			{
				params: t.Object({ id: t.String({ minLength: 1, maxLength: 255 }) }),
				response: { 200: DocumentDetail, ...errorResponses },
				detail: { ...detail, summary: 'Get a document by id or customId, with its pipeline stages' },
			},
		)
		.patch(
			'/:id',
			async ({ params, body: { filterByMetadata, ...body }, scope, principal }) => {
				const visible = await visibleDocument(documents, principal, scope, params.id)
				const tag = singleTag(body)
				if (tag !== undefined) assertTagAllowed(principal, tag)
				const document = await documents.update(scope, visible.id, {
					...body,
					containerTag: tag,
					formationScope: filterByMetadata,
				})
				return { id: document.id, status: document.status }
			},
			{
				params: t.Object({ id: t.String({ minLength: 1, maxLength: 255 }) }),
				body: UpdateDocumentBody,
				response: { 200: DocumentAck, ...errorResponses },
				detail: { ...detail, summary: 'Update a document; changed content is reprocessed' },
			},
		)
		.delete(
			'/:id',
			async ({ params, scope, set, principal }) => {
				const document = await visibleDocument(documents, principal, scope, params.id)
				await documents.delete(scope, document.id)
				set.status = 204
			},
			{
				params: t.Object({ id: t.String({ minLength: 1, maxLength: 255 }) }),
				response: { 204: t.Void(), ...errorResponses },
				detail: { ...detail, summary: 'Delete a document (by id or customId) and everything derived from it' },
			},
		)
		.post(
			'/:id/retry',
			async ({ params, scope, principal }) => {
				const visible = await visibleDocument(documents, principal, scope, params.id)
				const document = await documents.retry(scope, visible.id)
				return { id: document.id, status: document.status }
			},
			{
				params: t.Object({ id: t.String({ minLength: 1, maxLength: 255 }) }),
				response: { 200: DocumentAck, ...errorResponses, 409: errorResponses[400] },
				detail: {
					...detail,
					summary: 'Process a failed document again from the stage that failed (409 unless failed)',
				},
			},
		)
		.get(
			'/:id/chunks',
			async ({ params, scope, principal }) => {
				const visible = await visibleDocument(documents, principal, scope, params.id)
				const { document, chunks } = await documents.chunks(scope, visible.id)
				return { documentId: document.id, chunks: chunks.map(chunkOut), total: chunks.length }
			},
			{
				params: t.Object({ id: t.String({ minLength: 1, maxLength: 255 }) }),
				response: { 200: ChunksResponse, ...errorResponses },
				detail: { ...detail, summary: 'All searchable chunks of a document, by position' },
			},
		)
}
