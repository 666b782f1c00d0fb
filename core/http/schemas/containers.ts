import { t } from 'elysia'
import { ContainerTag, Filters, UnitInterval } from './common.ts'
import { REQUEST_EXAMPLES } from './examples.ts'
import { ProfileBuckets } from './settings.ts'

const Timestamp = t.String({ description: 'ISO 8601 date-time' })

const BucketOut = t.Object({ key: t.String(), description: t.String() })

export const ProfileBody = t.Object(
	{
		containerTag: ContainerTag,
		q: t.Optional(t.String({ minLength: 1, maxLength: 10_000, error: 'must be a non-empty string' })),
		threshold: t.Optional(UnitInterval()),
		filters: t.Optional(Filters),
		include: t.Optional(
			t.Array(t.UnionEnum(['static', 'dynamic', 'buckets'], { default: undefined }), {
				maxItems: 3,
				error: 'must be an array of "static", "dynamic" or "buckets"',
			}),
		),
		buckets: t.Optional(
			t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 50, error: 'must be an array of bucket keys' }),
		),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.profile] },
)

export const ProfileResponse = t.Object({
	profile: t.Object({
		static: t.Optional(t.Array(t.String())),
		dynamic: t.Optional(t.Array(t.String())),
		buckets: t.Optional(t.Record(t.String(), t.Array(t.String()))),
	}),
	searchResults: t.Optional(t.Object({ results: t.Array(t.Unknown()), total: t.Number(), timing: t.Number() })),
})

export const ProfileBucketsBody = t.Object(
	{ containerTag: ContainerTag },
	{ examples: [REQUEST_EXAMPLES.profileBuckets] },
)
export const ProfileBucketsResponse = t.Object({ buckets: t.Array(BucketOut) })

export const ContainerTagParams = t.Object({ containerTag: ContainerTag })

export const ContainerTagListItem = t.Object({
	id: t.String(),
	name: t.String(),
	containerTag: t.String(),
	description: t.Nullable(t.String()),
	createdAt: Timestamp,
	updatedAt: Timestamp,
	isExperimental: t.Boolean(),
	isNova: t.Boolean(),
	documentCount: t.Number(),
	memoryCount: t.Number(),
	lastActivityAt: t.Nullable(Timestamp),
})

export const ContainerTagView = t.Object({
	containerTag: t.String(),
	name: t.Nullable(t.String()),
	entityContext: t.Nullable(t.String()),
	memoryFilesystemPaths: t.Nullable(t.Array(t.String())),
	profileBuckets: t.Array(BucketOut),
	createdAt: Timestamp,
	updatedAt: Timestamp,
})

export const ContainerTagPatchBody = t.Object(
	{
		name: t.Optional(t.String({ minLength: 1, maxLength: 100, error: 'must be 1 to 100 characters' })),
		entityContext: t.Optional(t.Nullable(t.String({ maxLength: 1500, error: 'must be at most 1500 characters' }))),
		memoryFilesystemPaths: t.Optional(t.Nullable(t.Array(t.String()))),
		profileBuckets: t.Optional(ProfileBuckets),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.containerTag] },
)

export const ContainerTagPatchResponse = t.Omit(ContainerTagView, ['createdAt'])

export const ContainerTagDeleteResponse = t.Object({
	success: t.Boolean(),
	containerTag: t.String(),
	deletedDocumentsCount: t.Number(),
	deletedMemoriesCount: t.Number(),
})

export const MergeBody = t.Object(
	{
		containerTags: t.Array(ContainerTag, { minItems: 1, maxItems: 10, error: 'must be 1 to 10 source container tags' }),
		targetContainerTag: ContainerTag,
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.merge] },
)

export const MergeResponse = t.Object(
	{
		success: t.Boolean(),
		status: t.Literal('queued'),
		mergeId: t.String(),
		targetTag: t.String(),
		sourceTags: t.Array(t.String()),
	},
	{ additionalProperties: false },
)

export const MergeStatusResponse = t.Object({
	id: t.String(),
	status: t.String(),
	targetTag: t.String(),
	sourceTags: t.Array(t.String()),
	documentsMoved: t.Number(),
	memoriesMoved: t.Number(),
	customIdConflicts: t.Number(),
	error: t.Nullable(t.String()),
	createdAt: Timestamp,
	updatedAt: Timestamp,
	finishedAt: t.Nullable(Timestamp),
})
