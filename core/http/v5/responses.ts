import { type TSchema, t } from 'elysia'
import { DOCUMENT_STATUSES } from '../../domain/types.ts'
import { DocumentStatus, ErrorResponse } from '../schemas/common.ts'

/**
 * The v5 response bodies (REFERENCE-V5 section 3), for the OpenAPI documents only: `documented` puts them in an
 * operation's `responses` without Elysia validating the answers against them (tests/v5/openapi.test.ts checks real
 * answers against them instead).
 */
const closed = { additionalProperties: false } as const
const Timestamp = t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' })
const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])
const AnyObject = t.Record(t.String(), t.Unknown())
const ValidationErrorBody = t.Object({
	success: t.Literal(false),
	error: t.Array(t.Object({ message: t.String(), path: t.Optional(t.Array(t.Union([t.String(), t.Number()]))) })),
	data: t.Optional(t.Unknown()),
})

export const DocumentRef = t.Object({ id: t.String({ minLength: 1 }), status: DocumentStatus }, closed)

export const BatchAddResult = t.Object(
	{
		results: t.Array(
			t.Object(
				{
					id: t.String(),
					status: t.UnionEnum([...DOCUMENT_STATUSES, 'error']),
					error: t.Optional(t.String()),
					details: t.Optional(t.String()),
					url: t.Optional(t.String()),
				},
				closed,
			),
		),
		count: t.Integer({ minimum: 0 }),
		failed: t.Integer({ minimum: 0 }),
	},
	closed,
)

export const DeleteDocumentsResult = t.Object(
	{
		count: t.Integer({ minimum: 0 }),
		errors: t.Array(t.Object({ id: t.String({ minLength: 1 }), error: t.String({ minLength: 1 }) }, closed)),
	},
	closed,
)

const Chunk = t.Object({
	id: t.String(),
	position: t.Integer(),
	content: t.String(),
	type: t.String(),
	metadata: AnyObject,
	system: t.Object({ createdAt: Timestamp }),
})

export const Memory = t.Object({
	id: t.String(),
	memory: t.String(),
	metadata: AnyObject,
	isStatic: t.Boolean(),
	isInference: t.Boolean(),
	isLatest: t.Boolean(),
	isForgotten: t.Boolean(),
	version: t.Integer(),
	system: t.Object({ createdAt: Timestamp, updatedAt: Timestamp }),
})

export const Document = t.Object({
	id: t.String(),
	title: Nullable(t.String()),
	type: t.String(),
	summary: Nullable(t.String()),
	content: Nullable(t.String()),
	metadata: AnyObject,
	system: t.Object({ status: DocumentStatus, createdAt: Timestamp, updatedAt: Timestamp }),
	chunks: t.Optional(t.Array(Chunk)),
	memories: t.Optional(t.Array(Memory)),
})

const IncludedDocument = t.Object({
	id: t.String(),
	title: Nullable(t.String()),
	type: Nullable(t.String()),
	metadata: AnyObject,
	summary: Nullable(t.String()),
	system: t.Object({ createdAt: t.String(), updatedAt: t.String() }),
})
const RelatedMemory = t.Object({
	id: t.String(),
	relation: t.UnionEnum(['updates', 'extends', 'derives']),
	version: t.Optional(Nullable(t.Number())),
	memory: t.String(),
	metadata: AnyObject,
	system: t.Object({ updatedAt: t.String() }),
	document: t.Optional(IncludedDocument),
})
const Related = t.Object({
	parents: t.Array(RelatedMemory),
	children: t.Array(RelatedMemory),
	siblings: t.Array(RelatedMemory),
})

export const SearchResponse = t.Object({
	results: t.Array(
		t.Object({
			id: t.String(),
			memory: t.Optional(t.String()),
			chunk: t.Optional(t.String()),
			metadata: AnyObject,
			similarity: t.Number({ minimum: 0, maximum: 1 }),
			isLatest: t.Boolean(),
			isInference: t.Boolean(),
			system: t.Object({ updatedAt: t.String(), createdAt: t.Optional(t.String()) }),
			included: t.Optional(t.Object({ related: t.Optional(Related), document: t.Optional(IncludedDocument) })),
		}),
	),
	searchTime: t.Number(),
})

export const MemoryDetails = t.Composite([
	Memory,
	t.Object({
		included: t.Optional(t.Object({ related: t.Optional(Related), document: t.Optional(IncludedDocument) })),
	}),
])

export const Pagination = t.Object({
	currentPage: t.Number(),
	limit: t.Optional(t.Number()),
	totalItems: t.Number(),
	totalPages: t.Number(),
})

export const ListResponse = t.Object({
	documents: t.Array(
		t.Object({
			id: t.String(),
			title: Nullable(t.String()),
			type: t.String(),
			summary: Nullable(t.String()),
			metadata: AnyObject,
			url: Nullable(t.String()),
			system: t.Object({ status: t.String(), createdAt: Timestamp, updatedAt: Timestamp }),
		}),
	),
	chunks: t.Array(t.Composite([Chunk, t.Object({ documentId: t.String() })])),
	memories: t.Array(Memory),
	pagination: Pagination,
})

const ProfileFact = t.Object({ id: t.String(), memory: t.String() })
export const ProfileResponse = t.Object({
	profile: t.Object({
		static: t.Array(ProfileFact),
		dynamic: t.Array(ProfileFact),
		buckets: t.Record(t.String(), t.Array(ProfileFact)),
	}),
})
export const ProfileBuckets = t.Object({ buckets: t.Record(t.String(), t.String()) })

export const ForgetResult = t.Object(
	{
		count: t.Integer({ minimum: 0 }),
		errors: t.Array(t.Object({ id: t.String(), error: t.String() }, closed)),
		matches: t.Array(t.Object({ id: t.String(), memory: t.String() }, closed)),
	},
	closed,
)

export const NamespaceList = t.Object({
	namespaces: t.Array(
		t.Object({
			id: t.String(),
			namespace: t.String(),
			documentCount: t.Integer({ minimum: 0 }),
			memoryCount: t.Integer({ minimum: 0 }),
			description: Nullable(t.String()),
			system: t.Object({ createdAt: Timestamp, updatedAt: Timestamp }),
		}),
	),
	pagination: Pagination,
})
export const NamespaceDetails = t.Object({
	namespace: t.String(),
	supportingContext: Nullable(t.String()),
	system: t.Object({ createdAt: t.String(), updatedAt: t.String() }),
})
export const Organization = t.Object({
	organizationalContext: Nullable(t.String()),
	namespaceCount: t.Integer({ minimum: 0 }),
})

const ConnectorRun = t.Object({
	errorCode: Nullable(
		t.UnionEnum(['auth_expired', 'rate_limited', 'plan_required', 'provider_unavailable', 'internal']),
	),
	error: Nullable(t.String()),
	system: t.Object({
		status: t.UnionEnum(['running', 'completed', 'failed']),
		startedAt: Timestamp,
		completedAt: Nullable(Timestamp),
	}),
})
const Link = t.Object({ url: t.String(), expiresAt: Timestamp })
export const Connector = t.Object({
	id: t.String(),
	provider: t.String(),
	authorization: t.Optional(Nullable(Link)),
	namespace: Nullable(t.String()),
	account: Nullable(t.String()),
	capabilities: t.Object({ selectable: t.Boolean(), webhooks: t.Boolean() }),
	config: Nullable(t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean()]))),
	selection: Nullable(t.Record(t.String(), t.Array(t.Object({ id: t.String(), name: t.String() })))),
	documentLimit: t.Number(),
	documentCount: t.Number(),
	latestRun: Nullable(ConnectorRun),
	system: t.Object({
		status: t.UnionEnum(['pending_authorization', 'active']),
		createdAt: Timestamp,
		lastSuccessfulSyncAt: Nullable(Timestamp),
	}),
	syncs: t.Optional(t.Array(t.Unknown())),
	picker: t.Optional(Nullable(Link)),
})
export const ConnectorList = t.Object({ connectors: t.Array(Connector), pagination: Pagination })
export const ConnectorCreated = t.Object({ id: t.String(), authorization: Nullable(Link) })
export const ConnectorDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) })
export const SyncQueued = t.Object({ id: t.String(), status: t.Literal('queued') })
export const FeedbackAccepted = t.Object({
	id: t.String({ examples: ['fb_k3m9q2x7wd'] }),
	remaining: t.Number({ description: 'Reports the organization may still send before 00:00 UTC' }),
})

const json = (schema: TSchema) => ({ content: { 'application/json': { schema } } })

/** Errors only some operations answer, with what they mean there. */
const OPERATION_ERRORS = {
	402: 'This deployment does not offer it',
	404: 'Not found (or not visible to this key)',
	409: 'Conflicts with the current state',
	503: 'The provider is not configured on this deployment',
} as const

/**
 * An operation's documented answers: its success body, v5's error shapes for the errors every operation may answer
 * (a body over its limit: 413; the key's rate limit: 429, with Retry-After), and `also` the ones of this operation.
 */
export function documented(
	status: 200 | 201 | 202,
	schema: TSchema,
	description: string,
	also: (keyof typeof OPERATION_ERRORS)[] = [],
) {
	return {
		responses: {
			[status]: { description, ...json(schema) },
			400: { description: 'Invalid request', ...json(t.Union([ErrorResponse, ValidationErrorBody])) },
			401: { description: 'Missing or invalid API key', ...json(ErrorResponse) },
			403: { description: 'The key may not reach this namespace or operation', ...json(ErrorResponse) },
			...Object.fromEntries(
				also.map((code) => [code, { description: OPERATION_ERRORS[code], ...json(ErrorResponse) }]),
			),
			413: { description: 'The body is over its limit', ...json(ErrorResponse) },
			429: { description: "Over the key's rate limit; Retry-After says when to try again", ...json(ErrorResponse) },
			500: { description: 'Internal error', ...json(ErrorResponse) },
		},
	}
}
