import { t } from 'elysia'
import { ContainerTag, ContainerTags, Dreaming, MetadataIn, TaskType } from './common.ts'
import { AddDocumentBody } from './documents.ts'
import { REQUEST_EXAMPLES } from './examples.ts'
import { MetadataFields } from './ingest.ts'

export const MAX_BATCH_DOCUMENTS = 600

/** Fields given once for the whole batch; an item's own value wins (metadata is merged, the item's keys winning). */
const batchDefaults = {
	containerTag: t.Optional(ContainerTag),
	containerTags: t.Optional(ContainerTags),
	metadata: t.Optional(MetadataIn),
	metadataFields: t.Optional(MetadataFields),
	taskType: t.Optional(TaskType),
	filepath: t.Optional(t.String({ minLength: 1, maxLength: 1024 })),
	filterByMetadata: t.Optional(MetadataIn),
	entityContext: t.Optional(t.String({ maxLength: 1500, error: 'must be at most 1500 characters' })),
	dreaming: t.Optional(Dreaming),
	content: t.Optional(t.Null()),
}

/** What the route checks before looking at the items, so one bad item never rejects the rest. */
export const BatchEnvelope = t.Object(
	{
		documents: t.Array(t.Unknown(), {
			minItems: 1,
			maxItems: MAX_BATCH_DOCUMENTS,
			error: `must be an array of 1 to ${MAX_BATCH_DOCUMENTS} documents`,
		}),
		...batchDefaults,
	},
	{ additionalProperties: false },
)

/** The documented request: items are documents as POST /v3/documents takes them, or bare content strings. */
export const BatchBody = t.Object(
	{
		documents: t.Union([t.Array(AddDocumentBody), t.Array(t.String({ minLength: 1 }))], {
			description: `1 to ${MAX_BATCH_DOCUMENTS} documents (objects as POST /v3/documents takes, or content strings); each is checked on its own`,
		}),
		...batchDefaults,
	},
	{ examples: [REQUEST_EXAMPLES.batch] },
)

export const BatchResponse = t.Object({
	results: t.Array(
		t.Object({
			id: t.String({ description: 'The document id; "" when the item failed' }),
			status: t.String({ description: 'The document status (queued, done, ...), or "error"' }),
			error: t.Optional(t.String()),
			details: t.Optional(t.String()),
		}),
		{ description: 'One result per item, in request order' },
	),
	success: t.Number({ description: 'Items added' }),
	failed: t.Number({ description: 'Items refused' }),
})
