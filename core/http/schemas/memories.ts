import { t } from 'elysia'
import {
	BoundedInteger,
	ContainerTag,
	DateTime,
	Filters,
	MetadataIn,
	MetadataOut,
	NumberLike,
	Pagination,
	UnitInterval,
} from './common.ts'
import { REQUEST_EXAMPLES } from './examples.ts'

const Relation = t.UnionEnum(['updates', 'extends', 'derives'])

const Instant = (description: string) =>
	t.Nullable(t.String({ minLength: 1, maxLength: 64, error: 'must be an ISO 8601 date-time or null', description }))

export const TemporalContext = t.Object(
	{
		documentDate: t.Optional(Instant('When the source was written')),
		eventDate: t.Optional(t.Nullable(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 }))),
	},
	{ additionalProperties: false, description: 'Merged into the memory metadata (keys documentDate and eventDate)' },
)

const MemoryContent = t.String({
	minLength: 1,
	maxLength: 10_000,
	error: 'must be 1 to 10000 characters',
	description: 'One self-contained statement, e.g. "John prefers dark mode"',
})

export const CreateMemoriesBody = t.Object(
	{
		containerTag: ContainerTag,
		memories: t.Array(
			t.Object(
				{
					content: MemoryContent,
					isStatic: t.Optional(t.Boolean({ description: 'A lasting trait (name, profession, hometown)' })),
					metadata: t.Optional(MetadataIn),
					forgetAfter: t.Optional(Instant('Forgotten automatically after this instant; null for never')),
					forgetReason: t.Optional(t.Nullable(t.String({ maxLength: 1000 }))),
					temporalContext: t.Optional(TemporalContext),
				},
				{ additionalProperties: false },
			),
			{ minItems: 1, maxItems: 100, error: 'must list 1 to 100 memories' },
		),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.createMemories] },
)

export const CreatedMemory = t.Object({
	id: t.String(),
	memory: t.String(),
	isStatic: t.Boolean(),
	createdAt: DateTime,
	forgetAfter: t.Nullable(DateTime),
	forgetReason: t.Nullable(t.String()),
	metadata: MetadataOut,
})

export const CreateMemoriesResponse = t.Object({
	documentId: t.Nullable(t.String({ description: 'The source document created for these memories' })),
	memories: t.Array(CreatedMemory),
})

const Target = {
	containerTag: ContainerTag,
	id: t.Optional(t.String({ minLength: 1, maxLength: 255, description: 'The memory id' })),
	content: t.Optional(
		t.String({ minLength: 1, maxLength: 10_000, description: 'Exact text of the memory, when its id is unknown' }),
	),
}

export const UpdateMemoryBody = t.Object(
	{
		...Target,
		newContent: MemoryContent,
		metadata: t.Optional(MetadataIn),
		forgetAfter: t.Optional(Instant('Omit to inherit; null clears the expiry (and its reason)')),
		forgetReason: t.Optional(t.Nullable(t.String({ maxLength: 1000 }))),
		temporalContext: t.Optional(TemporalContext),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.updateMemory] },
)

export const UpdatedMemory = t.Object({
	id: t.String({ description: 'The new version' }),
	memory: t.String(),
	version: t.Number(),
	parentMemoryId: t.Nullable(t.String()),
	rootMemoryId: t.Nullable(t.String()),
	createdAt: DateTime,
	forgetAfter: t.Nullable(DateTime),
	forgetReason: t.Nullable(t.String()),
	metadata: MetadataOut,
})

export const ForgetMemoryBody = t.Object(
	{ ...Target, reason: t.Optional(t.String({ maxLength: 1000 })) },
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.forgetMemory] },
)

export const ForgetMemoryResponse = t.Object({ id: t.String(), forgotten: t.Boolean() })

export const ForgetMatchingBody = t.Object(
	{
		containerTag: ContainerTag,
		query: t.Optional(
			t.String({
				minLength: 1,
				maxLength: 2000,
				error: 'must be 1 to 2000 characters',
				description: 'A topic or an instruction ("forget everything about my old job")',
			}),
		),
		ids: t.Optional(
			t.Array(t.String({ minLength: 1, maxLength: 255 }), {
				minItems: 1,
				maxItems: 500,
				error: 'must list 1 to 500 ids',
			}),
		),
		dryRun: t.Optional(t.Boolean({ description: 'Only report what would be forgotten' })),
		threshold: t.Optional(UnitInterval('Minimum similarity')),
		maxForget: t.Optional(BoundedInteger(1, 500, 100)),
		reason: t.Optional(t.String({ maxLength: 1000 })),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.forgetMatching] },
)

const Match = t.Object({ id: t.String(), memory: t.String(), score: t.Number() })

export const ForgetMatchingResponse = t.Object({
	dryRun: t.Boolean(),
	count: t.Number(),
	forgetBatchId: t.Nullable(t.String()),
	summary: t.String(),
	candidates: t.Optional(t.Array(Match)),
	forgotten: t.Optional(t.Array(Match)),
})

export const ListMemoriesBody = t.Object(
	{
		containerTags: t.Array(ContainerTag, { minItems: 1, maxItems: 100, error: 'containerTags are required' }),
		filters: t.Optional(Filters),
		limit: t.Optional(NumberLike),
		page: t.Optional(NumberLike),
		order: t.Optional(t.UnionEnum(['asc', 'desc'], { error: 'must be "asc" or "desc"', default: undefined })),
		sort: t.Optional(
			t.UnionEnum(['createdAt', 'updatedAt'], { error: 'must be "createdAt" or "updatedAt"', default: undefined }),
		),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.listMemories] },
)

const HistoryEntry = t.Object({
	id: t.String(),
	memory: t.String(),
	version: t.Number(),
	createdAt: DateTime,
	updatedAt: DateTime,
	parentMemoryId: t.Nullable(t.String()),
	rootMemoryId: t.Nullable(t.String()),
	isLatest: t.Boolean(),
	isForgotten: t.Boolean(),
})

export const MemoryEntry = t.Object({
	id: t.String(),
	memory: t.String(),
	version: t.Number(),
	isLatest: t.Boolean(),
	isForgotten: t.Boolean(),
	isStatic: t.Boolean(),
	isInference: t.Nullable(t.Boolean()),
	createdAt: DateTime,
	updatedAt: DateTime,
	spaceId: t.String({ description: 'The container tag' }),
	containerTag: t.String(),
	orgId: t.String(),
	sourceCount: t.Number(),
	parentMemoryId: t.Nullable(t.String()),
	rootMemoryId: t.Nullable(t.String()),
	forgetAfter: t.Nullable(DateTime),
	forgetReason: t.Nullable(t.String()),
	metadata: MetadataOut,
	memoryRelations: t.Nullable(t.Record(t.String(), Relation)),
	temporalContext: MetadataOut,
	history: t.Array(HistoryEntry),
	documentIds: t.Array(t.String()),
})

export const ListMemoriesResponse = t.Object({ memoryEntries: t.Array(MemoryEntry), pagination: Pagination })

/** A memory of a document, as GET /v3/documents/{id} lists them. */
export const MemoryOfDocument = t.Object({
	id: t.String(),
	memory: t.String(),
	createdAt: DateTime,
	updatedAt: t.Nullable(DateTime),
	isLatest: t.Boolean(),
	isForgotten: t.Boolean(),
	isStatic: t.Boolean(),
	isInference: t.Boolean(),
	version: t.Number(),
	sourceCount: t.Number(),
	metadata: MetadataOut,
	parentMemoryId: t.Nullable(t.String()),
	rootMemoryId: t.Nullable(t.String()),
})
