import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { CONTAINER_TAG_PATTERN, MetadataIn } from '../schemas/common.ts'
import { FilterExpression } from './filter.ts'

/** The namespace path parameter: a container tag. */
export const Namespace = t.String({
	minLength: 1,
	maxLength: 100,
	pattern: CONTAINER_TAG_PATTERN,
	error: 'must be 1 to 100 characters of letters, digits, "_", ":" or "-"',
	examples: ['user_123'],
})

export const NamespaceParams = t.Object({ namespace: Namespace })

/** A document's internal id or the caller's id (any characters, percent-encoded in paths). */
export const CallerId = t.String({ minLength: 1, maxLength: 255, error: 'must be 1 to 255 characters' })

export const DocumentParams = t.Object({ namespace: Namespace, id: CallerId })

const SupportingContext = t.String({ maxLength: 1500, error: 'must be at most 1500 characters' })
const TaskType = t.UnionEnum(['memory', 'superrag'], { error: 'must be "memory" or "superrag"', default: undefined })
const Dreaming = t.UnionEnum(['dynamic', 'instant'], { error: 'must be "dynamic" or "instant"', default: undefined })
const DateText = t.String({ minLength: 1, maxLength: 64, description: 'ISO 8601: when the source content is from' })

const documentFields = {
	id: t.Optional(CallerId),
	supportingContext: t.Optional(SupportingContext),
	metadata: t.Optional(MetadataIn),
	group: t.Optional(MetadataIn),
	date: t.Optional(DateText),
}

export const AddBody = t.Object(
	{
		content: t.String({ minLength: 1, error: 'must be a non-empty string' }),
		...documentFields,
		taskType: t.Optional(TaskType),
		dreaming: t.Optional(Dreaming),
	},
	{
		additionalProperties: false,
		examples: [{ content: 'User prefers dark mode and uses vim.', id: 'chat_session_1', metadata: { source: 'chat' } }],
	},
)

export const DocumentInput = t.Object(
	{ content: t.String({ minLength: 1, error: 'must be a non-empty string' }), ...documentFields },
	{ additionalProperties: false },
)

export const BatchBody = t.Object(
	{
		documents: t.Array(DocumentInput, { minItems: 1, maxItems: 600, error: 'must hold 1 to 600 documents' }),
		taskType: t.Optional(TaskType),
		dreaming: t.Optional(Dreaming),
	},
	{
		additionalProperties: false,
		examples: [{ documents: [{ content: 'Meeting notes: ship v5 on Friday', id: 'notes_1' }] }],
	},
)

export const UpdateBody = t.Object(
	{
		content: t.Optional(t.String({ minLength: 1, error: 'must be a non-empty string' })),
		supportingContext: t.Optional(SupportingContext),
		metadata: t.Optional(MetadataIn),
		group: t.Optional(MetadataIn),
		date: t.Optional(DateText),
		taskType: t.Optional(TaskType),
		dreaming: t.Optional(Dreaming),
	},
	{ additionalProperties: false, examples: [{ metadata: { reviewed: true } }] },
)

export const DeleteDocumentsBody = t.Object(
	{ ids: t.Array(CallerId, { minItems: 1, maxItems: 100, error: 'must hold 1 to 100 ids' }) },
	{ additionalProperties: false, examples: [{ ids: ['chat_session_1'] }] },
)

/** `include` on GETs: repeated (`?include=a&include=b`), comma-separated or single; rc1 clients send `attach`. */
export const IncludeQuery = t.Object({
	include: t.Optional(t.Union([t.String(), t.Array(t.String())])),
	attach: t.Optional(t.Union([t.String(), t.Array(t.String())])),
})

const Integer = (minimum: number, maximum: number) =>
	Type.Integer({ minimum, maximum, error: `must be an integer from ${minimum} to ${maximum}` })

/** Query integers arrive as decimal strings. */
export const QueryInteger = (minimum: number, maximum: number) =>
	t.Numeric({ minimum, maximum, multipleOf: 1, error: `must be an integer from ${minimum} to ${maximum}` })

export const PageQuery = t.Object({
	page: t.Optional(QueryInteger(1, 1_000_000)),
	limit: t.Optional(QueryInteger(1, 100)),
})

export const SearchBody = t.Object(
	{
		query: t.String({ minLength: 1, maxLength: 10_000, error: 'must be a non-empty string' }),
		filter: t.Optional(FilterExpression),
		searchMode: t.Optional(t.UnionEnum(['hybrid', 'memories', 'chunks'], { default: undefined })),
		limit: t.Optional(Integer(1, 100)),
		include: t.Optional(
			t.Object(
				{
					documents: t.Optional(t.Boolean()),
					related: t.Optional(t.Boolean()),
					forgotten: t.Optional(t.Boolean()),
				},
				{ additionalProperties: false },
			),
		),
		threshold: t.Optional(t.Number({ minimum: 0, maximum: 1, error: 'must be a number from 0 to 1' })),
		rerank: t.Optional(t.UnionEnum(['none', 'order', 'aggregate'], { default: undefined })),
		rewriteQuery: t.Optional(t.Boolean()),
	},
	{ additionalProperties: false, examples: [{ query: 'what editor does the user prefer?', limit: 5 }] },
)

/** rc1 clients send `limit` and `searchMode` in the query. */
export const SearchQuery = t.Object({
	limit: t.Optional(QueryInteger(1, 100)),
	searchMode: t.Optional(t.UnionEnum(['hybrid', 'memories', 'chunks'], { default: undefined })),
})

export const BucketSlug = t.String({
	minLength: 1,
	maxLength: 64,
	pattern: '^[a-z0-9][a-z0-9_-]*$',
	error: 'must be 1 to 64 characters of a-z, 0-9, "_" or "-", starting with a letter or digit',
})

export const ProfileBody = t.Optional(
	t.Object(
		{
			filter: t.Optional(FilterExpression),
			buckets: t.Optional(t.Array(BucketSlug, { maxItems: 50 })),
		},
		{ additionalProperties: false, examples: [{}] },
	),
)

export const PutBucketsBody = t.Object(
	{
		buckets: t.Record(BucketSlug, t.String({ maxLength: 2000, error: 'must be at most 2000 characters' }), {
			minProperties: 1,
			maxProperties: 50,
		}),
	},
	{ additionalProperties: false, examples: [{ buckets: { travel: 'Trips, destinations and travel preferences' } }] },
)

export const DeleteBucketsBody = t.Object(
	{ buckets: t.Array(BucketSlug, { minItems: 1, maxItems: 50 }) },
	{ additionalProperties: false, examples: [{ buckets: ['travel'] }] },
)

export const ForgetBody = t.Object(
	{ ids: t.Array(t.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 500 }) },
	{ additionalProperties: false },
)

export const ForgetSemanticBody = t.Object(
	{
		query: t.String({ minLength: 1, maxLength: 2000, error: 'must be 1 to 2000 characters' }),
		dryRun: t.Boolean({ error: 'is required: true previews, false forgets' }),
	},
	{ additionalProperties: false, examples: [{ query: 'anything about my old job', dryRun: true }] },
)

export const MemoryParams = t.Object({ namespace: Namespace, id: t.String({ minLength: 1, maxLength: 255 }) })

export const MemoryQuery = t.Object({
	include: t.Optional(t.Union([t.String(), t.Array(t.String())])),
	relatedLimit: t.Optional(QueryInteger(1, 100)),
})

export const ListParams = t.Object({
	namespace: Namespace,
	type: t.UnionEnum(['documents', 'chunks', 'memories'], { default: undefined, examples: ['documents'] }),
})

export const ListQuery = t.Object({
	page: t.Optional(QueryInteger(1, 1_000_000)),
	limit: t.Optional(QueryInteger(1, 100)),
	sort: t.Optional(t.UnionEnum(['createdAt', 'updatedAt', 'position'], { default: undefined })),
	order: t.Optional(t.UnionEnum(['asc', 'desc'], { default: undefined })),
})

export const ListBody = t.Optional(
	t.Object(
		{
			filter: t.Optional(FilterExpression),
			include: t.Optional(t.Object({ forgotten: t.Optional(t.Boolean()) }, { additionalProperties: false })),
		},
		{ additionalProperties: false },
	),
)

export const NamespacePatchBody = t.Object(
	{ supportingContext: t.Optional(t.Nullable(SupportingContext)) },
	{ additionalProperties: false, examples: [{ supportingContext: 'Conversations with a customer of the bakery' }] },
)

export const NamespaceDeleteQuery = t.Object({
	moveTo: t.Optional(
		t.String({
			minLength: 1,
			maxLength: 100,
			pattern: CONTAINER_TAG_PATTERN,
			error: 'must be 1 to 100 characters of letters, digits, "_", ":" or "-"',
			description: 'Move everything into this namespace first (asynchronous, 202)',
		}),
	),
})

export const OrganizationPatchBody = t.Object(
	{
		organizationalContext: t.Nullable(
			t.String({ minLength: 1, maxLength: 1500, error: 'must be 1 to 1500 characters, or null to clear it' }),
		),
	},
	{ additionalProperties: false, examples: [{ organizationalContext: 'A bakery chain with 12 shops' }] },
)

export const FeedbackBody = t.Object(
	{
		type: t.UnionEnum(['bug', 'feature_request', 'docs', 'other'], { default: undefined }),
		title: t.String({ minLength: 1, maxLength: 120 }),
		description: t.String({ minLength: 1, maxLength: 5000 }),
		endpoint: t.Optional(t.String({ maxLength: 200 })),
		requestId: t.Optional(t.String({ maxLength: 200 })),
		expected: t.Optional(t.String({ maxLength: 2000 })),
		actual: t.Optional(t.String({ maxLength: 2000 })),
		client: t.Optional(t.String({ maxLength: 200 })),
		contactEmail: t.Optional(t.String({ maxLength: 320, format: 'email' })),
	},
	{
		// The one open v5 body: fields a newer client adds are accepted.
		additionalProperties: true,
		examples: [{ type: 'bug', title: 'Search misses a fact', description: 'Steps to reproduce: ...' }],
	},
)
