import type { Static } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { writeTag } from '../../auth/restriction.ts'
import type { Principal } from '../../auth/verifier.ts'
import type { AddDocumentInput, DocumentService } from '../../documents/service.ts'
import type { Scope } from '../../domain/types.ts'
import { badRequest, ServiceError } from '../../errors.ts'
import type { Logger } from '../../logger.ts'
import { bearerAuth } from '../auth.ts'
import { oneTag } from '../one-tag.ts'
import type { RouteDeps } from '../route-deps.ts'
import { BatchBody, BatchEnvelope, BatchResponse } from '../schemas/batch.ts'
import { errorResponses } from '../schemas/common.ts'
import { AddDocumentBody } from '../schemas/documents.ts'
import { validator } from '../validate.ts'

const checkEnvelope = validator(BatchEnvelope)
const checkItem = validator(AddDocumentBody)

/** Items stored at once; order of results is the request's whatever finishes first. */
const CONCURRENCY = 8

type Envelope = Static<typeof BatchEnvelope>
type Item = Static<typeof AddDocumentBody>
type Result = { id: string; status: string; error?: string; details?: string }

/**
 * An item with the batch-wide fields filled in (an item's own value wins; metadata merges, item keys winning; an
 * item's filterByMetadata replaces the batch's, as a scope is one condition, not a set of values).
 */
function withDefaults(item: Item, batch: Envelope): AddDocumentInput {
	const metadata = batch.metadata || item.metadata ? { ...batch.metadata, ...item.metadata } : undefined
	return {
		content: item.content,
		containerTag: oneTag(item.containerTag, item.containerTags) ?? oneTag(batch.containerTag, batch.containerTags),
		customId: item.customId,
		metadata,
		metadataFields: item.metadataFields ?? batch.metadataFields,
		dreaming: item.dreaming ?? batch.dreaming,
		taskType: item.taskType ?? batch.taskType,
		entityContext: item.entityContext ?? batch.entityContext,
		filepath: item.filepath ?? batch.filepath,
		formationScope: item.filterByMetadata ?? batch.filterByMetadata,
	}
}

async function addOne(
	documents: DocumentService,
	scope: Scope,
	principal: Principal,
	raw: unknown,
	index: number,
	batch: Envelope,
	logger?: Logger,
): Promise<Result> {
	const checked = checkItem(typeof raw === 'string' ? { content: raw } : raw, `documents[${index}]`)
	if (!checked.ok) return { id: '', status: 'error', error: 'Invalid request parameters', details: checked.details }
	try {
		const input = withDefaults(checked.value, batch)
		const document = await documents.add(scope, { ...input, containerTag: writeTag(principal, input.containerTag) })
		return { id: document.id, status: document.status }
	} catch (error) {
		if (error instanceof ServiceError) {
			return { id: '', status: 'error', error: error.message, ...(error.details ? { details: error.details } : {}) }
		}
		logger?.error('batch item failed', { index, error: error instanceof Error ? error.message : String(error) })
		return { id: '', status: 'error', error: 'Internal server error' }
	}
}

export function documentBatchRoutes({ verify, documents, logger }: RouteDeps & { logger?: Logger }) {
	return new Elysia({ prefix: '/v3/documents' }).use(bearerAuth(verify)).post(
		'/batch',
		async ({ body, scope, principal }) => {
			const envelope = checkEnvelope(body ?? {}, 'body')
			if (!envelope.ok) throw badRequest(envelope.details.replace(/^body[.:]\s?/, ''))
			oneTag(envelope.value.containerTag, envelope.value.containerTags)
			const items = envelope.value.documents
			const results: Result[] = new Array(items.length)
			let next = 0
			const worker = async () => {
				for (let index = next++; index < items.length; index = next++) {
					results[index] = await addOne(documents, scope, principal, items[index], index, envelope.value, logger)
				}
			}
			await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker))
			const failed = results.filter((result) => result.status === 'error').length
			return { results, success: results.length - failed, failed }
		},
		{
			response: { 200: BatchResponse, ...errorResponses },
			detail: {
				tags: ['documents'],
				summary: 'Add up to 600 documents; each item succeeds or fails on its own, results in request order',
				// The route checks the body itself (item by item), so the documented schema is given here.
				requestBody: { required: true, content: { 'application/json': { schema: BatchBody as object } } },
			},
		},
	)
}
