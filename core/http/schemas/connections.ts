import { t } from 'elysia'
import { ContainerTag, ContainerTags, DateTime, DocumentStatus, DocumentType } from './common.ts'

export const CreateConnectionBody = t.Object(
	{
		containerTag: t.Optional(ContainerTag),
		containerTags: t.Optional(ContainerTags),
		documentLimit: t.Optional(t.Integer({ minimum: 1, maximum: 10_000, error: 'must be an integer from 1 to 10000' })),
		metadata: t.Optional(
			t.Nullable(
				t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean()]), {
					error: 'must be an object of strings, numbers or booleans',
				}),
			),
		),
		redirectUrl: t.Optional(
			t.String({
				format: 'uri',
				pattern: '^[hH][tT][tT][pP][sS]?://[^\\s/?#]+',
				maxLength: 2048,
				error: 'must be an absolute http(s) URL',
			}),
		),
	},
	{ description: 'A new connection; OAuth providers answer with the link the user authorizes at' },
)

export const CreateConnectionResponse = t.Object({
	id: t.String(),
	authLink: t.Nullable(t.String()),
	expiresIn: t.Nullable(t.String()),
	redirectsTo: t.Optional(t.String()),
})

export const TagsBody = t.Object({ containerTags: t.Optional(ContainerTags) })
export const RequiredTagsBody = t.Object({ containerTags: t.Array(ContainerTag, { minItems: 1, maxItems: 100 }) })

export const SyncRun = t.Object({
	id: t.String(),
	trigger: t.UnionEnum(['manual', 'schedule', 'webhook']),
	status: t.String({ description: 'running, completed, failed, limit_reached or interrupted' }),
	errorCode: t.Nullable(t.String()),
	error: t.Nullable(t.String()),
	added: t.Number(),
	updated: t.Number(),
	deleted: t.Number(),
	skipped: t.Number(),
	failed: t.Number(),
	notes: t.Array(t.String(), {
		description: 'What the run held back and why (deletions refused on an incomplete listing, a failed scope)',
	}),
	retryAt: t.Nullable(DateTime),
	startedAt: DateTime,
	completedAt: t.Nullable(DateTime),
})

export const Connection = t.Object({
	id: t.String(),
	provider: t.String(),
	createdAt: DateTime,
	updatedAt: DateTime,
	containerTags: t.Array(t.String()),
	documentLimit: t.Nullable(t.Number()),
	email: t.Nullable(t.String()),
	expiresAt: t.Nullable(DateTime),
	metadata: t.Nullable(t.Record(t.String(), t.Unknown())),
	status: t.String({ description: 'pending (not authorized yet), active, expired (authorize again) or error' }),
	error: t.Nullable(t.String()),
	lastSyncRun: t.Nullable(SyncRun),
})

export const DeletedConnection = t.Object({ id: t.String(), provider: t.String() })

export const Provider = t.Object({
	provider: t.String({ description: 'The id used in the connection paths, e.g. `github`' }),
	displayName: t.String(),
	authType: t.UnionEnum(['oauth2', 'credentials', 'none']),
	fields: t.Array(t.Object({ key: t.String(), label: t.String(), secret: t.Boolean() }), {
		description: 'What a credentials connector asks for, sent in the create body `metadata`',
	}),
	settingsKey: t.Nullable(
		t.String({
			description: 'Prefix of the organization settings `<key>ClientId`, `<key>ClientSecret`, `<key>CustomKeyEnabled`',
		}),
	),
	scheduleEveryHours: t.Nullable(t.Number()),
	webhooks: t.Boolean(),
	resources: t.Boolean({ description: 'Whether resources are picked (GET /v3/connections/{id}/resources)' }),
	serverAppConfigured: t.Boolean({ description: 'OAuth: the server has its own application' }),
})

export const ImportedDocument = t.Object({
	id: t.String(),
	createdAt: DateTime,
	updatedAt: DateTime,
	status: DocumentStatus,
	summary: t.Nullable(t.String()),
	title: t.Nullable(t.String()),
	type: DocumentType,
})

export const ResourcesQuery = t.Object({
	page: t.Optional(t.Numeric({ minimum: 1, error: 'must be a positive integer' })),
	per_page: t.Optional(t.Numeric({ minimum: 1, maximum: 100, error: 'must be an integer from 1 to 100' })),
	parent_id: t.Optional(t.String()),
})

export const ResourcesResponse = t.Object({
	resources: t.Array(t.Record(t.String(), t.Unknown())),
	total_count: t.Optional(t.Number()),
})

export const ConfigureBody = t.Object({ resources: t.Array(t.Record(t.String(), t.Unknown()), { maxItems: 1000 }) })
export const ConfigureResponse = t.Object({
	success: t.Boolean(),
	message: t.String(),
	webhooksRegistered: t.Optional(t.Number()),
})

export const SyncFailure = t.Object({
	id: t.String(),
	externalId: t.Nullable(t.String()),
	error: t.String(),
	permanent: t.Boolean({ description: 'The item was given up: it is not read again until the provider changes it' }),
	createdAt: DateTime,
})
