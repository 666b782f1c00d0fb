import { Elysia, t } from 'elysia'
import { canSeeTag, requireUnrestricted } from '../../auth/restriction.ts'
import type { Principal } from '../../auth/verifier.ts'
import type { ConnectionView } from '../../connectors/connection-service.ts'
import type { Scope } from '../../domain/types.ts'
import { notFound, ServiceError } from '../../errors.ts'
import type { SyncRunRecord } from '../../plugins/connection-storage.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { baseUrlOf } from '../routes/connections.ts'
import { includeList, namespaceFor, nullsAsAbsent } from './access.ts'
import { applySelection, isSelectable, selectionOf } from './connector-selection.ts'
import { Connector, ConnectorCreated, ConnectorDeleted, ConnectorList, documented, SyncQueued } from './responses.ts'
import { Namespace, NamespaceParams, QueryInteger } from './schemas.ts'
import { V5_TAGS } from './tags.ts'

const PROVIDERS = ['notion', 'google-drive', 'onedrive', 'gmail', 'github', 'web-crawler', 's3', 'granola'] as const
const Provider = t.UnionEnum([...PROVIDERS], { default: undefined })
const DocumentLimit = t.Integer({ minimum: 1, maximum: 10_000, error: 'must be an integer from 1 to 10000' })
const closed = { additionalProperties: false } as const
const oauth = (provider: 'notion' | 'gmail' | 'onedrive' | 'github') =>
	t.Object(
		{
			provider: t.Literal(provider),
			redirectUrl: t.Optional(t.String({ format: 'uri' })),
			documentLimit: t.Optional(DocumentLimit),
		},
		closed,
	)

export const CreateConnectorBody = t.Union(
	[
		oauth('notion'),
		oauth('gmail'),
		oauth('onedrive'),
		oauth('github'),
		t.Object(
			{
				provider: t.Literal('google-drive'),
				redirectUrl: t.Optional(t.String({ format: 'uri' })),
				documentLimit: t.Optional(DocumentLimit),
				config: t.Optional(
					t.Object({ syncScope: t.Optional(t.UnionEnum(['selected', 'full'], { default: undefined })) }, closed),
				),
			},
			closed,
		),
		t.Object(
			{
				provider: t.Literal('s3'),
				config: t.Object(
					{
						bucket: t.String({ minLength: 1 }),
						region: t.String({ minLength: 1 }),
						accessKeyId: t.String({ minLength: 1 }),
						secretAccessKey: t.String({ minLength: 1 }),
						endpoint: t.Optional(t.String({ format: 'uri' })),
						prefix: t.Optional(t.String()),
					},
					closed,
				),
				documentLimit: t.Optional(DocumentLimit),
			},
			closed,
		),
		t.Object(
			{
				provider: t.Literal('web-crawler'),
				config: t.Object(
					{ startUrl: t.String({ format: 'uri' }), crawlDepth: t.Optional(t.Integer({ minimum: 1, maximum: 5 })) },
					closed,
				),
				documentLimit: t.Optional(DocumentLimit),
			},
			closed,
		),
		t.Object(
			{
				provider: t.Literal('granola'),
				config: t.Object({ apiKey: t.String({ minLength: 1 }) }, closed),
				documentLimit: t.Optional(DocumentLimit),
			},
			closed,
		),
	],
	{ examples: [{ provider: 'web-crawler', config: { startUrl: 'https://example.com/docs/', crawlDepth: 2 } }] },
)

const ListQuery = t.Object({
	provider: t.Optional(Provider),
	page: t.Optional(QueryInteger(1, 1_000_000)),
	limit: t.Optional(QueryInteger(1, 100)),
})
const ConnectorParams = t.Object({ namespace: Namespace, id: t.String({ minLength: 1, maxLength: 255 }) })
const Selection = t.Array(t.String({ minLength: 1 }), { maxItems: 500 })
const PatchBody = t.Object(
	{
		selection: t.Optional(
			t.Object(
				{
					repos: t.Optional(Selection),
					labels: t.Optional(Selection),
					files: t.Optional(Selection),
					folders: t.Optional(Selection),
				},
				closed,
			),
		),
		documentLimit: t.Optional(DocumentLimit),
	},
	{ ...closed, examples: [{ documentLimit: 500 }] },
)

/** How long a picker link opens the chooser. */
const PICKER_SECONDS = 3600

/**
 * The picker: the console's chooser for the connection (the user signs in with an unrestricted key there), open for
 * an hour, then back to `returnUrl`.
 */
function pickerLink(base: string, id: string, returnUrl: string | undefined) {
	const expires = Math.floor(Date.now() / 1000) + PICKER_SECONDS
	const back = returnUrl ? `/${encodeURIComponent(returnUrl)}` : ''
	return {
		url: `${base}/console/#/connections/${encodeURIComponent(id)}/choose/${expires}${back}`,
		expiresAt: new Date(expires * 1000).toISOString(),
	}
}

const ERROR_CODES = new Set(['auth_expired', 'rate_limited', 'plan_required', 'provider_unavailable', 'internal'])
const utc = (value: string | null) => (value === null ? null : new Date(value).toISOString())

function runOut(run: SyncRunRecord) {
	return {
		errorCode: run.errorCode && ERROR_CODES.has(run.errorCode) ? run.errorCode : run.error ? 'internal' : null,
		error: run.error,
		system: {
			status: run.status === 'running' ? 'running' : run.status === 'completed' ? 'completed' : 'failed',
			startedAt: utc(run.startedAt)!,
			completedAt: utc(run.completedAt),
		},
	}
}

/** Non-secret setup a connector keeps in its metadata (credentials are sealed elsewhere and never shown). */
function configOf(connection: ConnectionView): Record<string, string | number | boolean> | null {
	if (connection.provider !== 'web-crawler' || !connection.metadata) return null
	const { startUrl, depth } = connection.metadata
	return { ...(startUrl !== undefined ? { startUrl } : {}), ...(depth !== undefined ? { crawlDepth: depth } : {}) }
}

/** Connectors are v3 connections; the namespace is the (first) container tag it syncs into. */
export function connectorRoutes({ verify, connections, publicUrl, consoleEnabled }: RouteDeps) {
	function connectorOut(connection: ConnectionView, documentCount: number) {
		const pending = connection.status === 'pending'
		const last = connection.lastSyncRun
		return {
			id: connection.id,
			provider: connection.provider,
			namespace: connection.containerTags[0] ?? null,
			account: connection.email,
			capabilities: {
				selectable: isSelectable(connection.provider),
				webhooks: ['github', 'gmail', 'google-drive', 'notion', 'onedrive'].includes(connection.provider),
			},
			config: configOf(connection),
			selection: selectionOf(connection),
			documentLimit: connection.documentLimit ?? 10_000,
			documentCount,
			latestRun: last ? runOut(last) : null,
			system: {
				status: pending ? 'pending_authorization' : 'active',
				createdAt: utc(connection.createdAt)!,
				lastSuccessfulSyncAt: last?.status === 'completed' ? utc(last.completedAt) : null,
			},
		}
	}

	const countOf = (scope: Scope, connection: ConnectionView) => connections.documentCount(scope, connection.id)

	async function listed(
		scope: Scope,
		principal: Principal,
		namespace: string | null,
		query: { provider?: string; page?: number; limit?: number },
	) {
		const page = query.page ?? 1
		const limit = query.limit ?? 10
		const all = (await connections.list(scope, namespace ? [namespace] : undefined)).filter(
			(c) =>
				c.status !== 'pending' &&
				(query.provider === undefined || c.provider === query.provider) &&
				c.containerTags.some((tag) => canSeeTag(principal, tag)) &&
				(namespace === null || c.containerTags[0] === namespace),
		)
		const shown = all.slice((page - 1) * limit, page * limit)
		return {
			connectors: await Promise.all(shown.map(async (c) => connectorOut(c, await countOf(scope, c)))),
			pagination: { currentPage: page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
		}
	}

	async function owned(scope: Scope, principal: Principal, namespace: string, id: string) {
		namespaceFor(principal, namespace)
		const connection = await connections.get(scope, id).catch(() => null)
		if (!connection || connection.containerTags[0] !== namespace) throw notFound('Connector')
		return connection
	}

	const detail = (operationId: string, summary: string, answer?: ReturnType<typeof documented>) => ({
		tags: [V5_TAGS.connectors],
		operationId,
		summary,
		...answer,
	})

	return new Elysia()
		.use(bearerAuth(verify))
		.use(nullsAsAbsent())
		.get('/connectors', ({ query, scope, principal }) => listed(scope, principal, null, query), {
			query: ListQuery,
			detail: detail(
				'getConnectors',
				'Connectors of every namespace the key can read (pending ones hidden)',
				documented(200, ConnectorList, 'Connectors'),
			),
		})
		.post(
			'/ns/:namespace/connectors',
			async ({ params, body, scope, principal, request, set }) => {
				const namespace = namespaceFor(principal, params.namespace)
				requireUnrestricted(principal, 'creating connectors')
				if (body.provider === 's3') {
					throw new ServiceError(402, 'Payment required', 'this deployment has no s3 connector')
				}
				const metadata: Record<string, string | number> | undefined =
					body.provider === 'web-crawler'
						? { startUrl: body.config.startUrl, depth: body.config.crawlDepth ?? 3 }
						: body.provider === 'granola'
							? { apiKey: body.config.apiKey }
							: undefined
				const created = await connections
					.create(
						scope,
						body.provider,
						{
							containerTag: namespace,
							documentLimit: body.documentLimit,
							redirectUrl: 'redirectUrl' in body ? body.redirectUrl : undefined,
							metadata,
						},
						baseUrlOf(request, publicUrl),
					)
					.catch((error) => {
						// No connector plugin serves the provider on this deployment.
						if (error instanceof ServiceError && error.status === 404) {
							throw new ServiceError(503, 'Service unavailable', error.details ?? error.message, {
								'retry-after': '3600',
							})
						}
						throw error
					})
				set.status = 201
				return {
					id: created.id,
					authorization: created.authLink
						? { url: created.authLink, expiresAt: new Date(Date.now() + 3_600_000).toISOString() }
						: null,
				}
			},
			{
				params: NamespaceParams,
				body: CreateConnectorBody,
				detail: detail(
					'postNsByNamespaceConnectors',
					'Create a connector; OAuth providers answer an authorization URL (201)',
					documented(201, ConnectorCreated, 'Connector created', [402, 503]),
				),
			},
		)
		.get(
			'/ns/:namespace/connectors',
			({ params, query, scope, principal }) =>
				listed(scope, principal, namespaceFor(principal, params.namespace), query),
			{
				params: NamespaceParams,
				query: ListQuery,
				detail: detail(
					'getNsByNamespaceConnectors',
					'Connectors syncing into the namespace (pending ones hidden)',
					documented(200, ConnectorList, 'Connectors'),
				),
			},
		)
		.get(
			'/ns/:namespace/connectors/:id',
			async ({ params, query, scope, principal, request }) => {
				const include = includeList(query.include ?? query.attach, ['syncs', 'picker'] as const)
				const connection = await owned(scope, principal, params.namespace, params.id)
				const out: Record<string, unknown> = connectorOut(connection, await countOf(scope, connection))
				if (connection.status === 'pending') out.authorization = null
				if (include.has('syncs')) {
					const runs = await connections.runs(scope, connection.id, 10)
					out.syncs = await Promise.all(
						runs.map(async (run) => ({
							id: run.id,
							...runOut(run),
							trigger: run.trigger === 'webhook' ? 'event' : run.trigger === 'schedule' ? 'cron' : 'manual',
							itemsProcessed: run.added + run.updated + run.deleted + run.skipped,
							itemsFailed: run.failed,
							failures: (await connections.failures(scope, connection.id, run.id)).slice(0, 50).map((f) => ({
								documentId: f.externalId ?? '',
								title: null,
								errorCode: 'internal',
								errorMessage: f.error,
								failedAt: utc(f.createdAt)!,
							})),
						})),
					)
				}
				if (include.has('picker')) {
					requireUnrestricted(principal, "opening a connector's picker")
					// The chooser is a console page: no console, no picker.
					const selectable = consoleEnabled && isSelectable(connection.provider) && connection.status === 'active'
					out.picker = selectable ? pickerLink(baseUrlOf(request, publicUrl), connection.id, query.returnUrl) : null
				}
				return out
			},
			{
				params: ConnectorParams,
				query: t.Object({
					include: t.Optional(t.Union([t.String(), t.Array(t.String())])),
					attach: t.Optional(t.Union([t.String(), t.Array(t.String())])),
					returnUrl: t.Optional(t.String({ format: 'uri', error: 'must be an absolute URL' })),
				}),
				detail: detail(
					'getNsByNamespaceConnectorsById',
					'A connector, with ?include=syncs (last 10 runs) and picker (the console chooser)',
					documented(200, Connector, 'The connector', [404]),
				),
			},
		)
		.patch(
			'/ns/:namespace/connectors/:id',
			async ({ params, body, scope, principal, request }) => {
				const connection = await owned(scope, principal, params.namespace, params.id)
				requireUnrestricted(principal, 'changing connectors')
				if (body.documentLimit !== undefined)
					await connections.setDocumentLimit(scope, connection.id, body.documentLimit)
				if (body.selection !== undefined) {
					await applySelection(connections, scope, connection, body.selection, baseUrlOf(request, publicUrl))
				}
				const updated = await connections.get(scope, connection.id)
				return connectorOut(updated, await countOf(scope, updated))
			},
			{
				params: ConnectorParams,
				body: PatchBody,
				detail: detail(
					'patchNsByNamespaceConnectorsById',
					'Replace the selection (repos, labels, folders) and/or documentLimit; a new selection starts a sync',
					documented(200, Connector, 'Updated connector', [404]),
				),
			},
		)
		.delete(
			'/ns/:namespace/connectors/:id',
			async ({ params, query, scope, principal }) => {
				const connection = await owned(scope, principal, params.namespace, params.id)
				requireUnrestricted(principal, 'deleting connectors')
				await connections.delete(scope, connection.id, query.deleteDocuments !== 'false')
				return { id: connection.id, deleted: true as const }
			},
			{
				params: ConnectorParams,
				query: t.Object({ deleteDocuments: t.Optional(t.UnionEnum(['true', 'false'], { default: undefined })) }),
				detail: detail(
					'deleteNsByNamespaceConnectorsById',
					'Disconnect; imported documents are deleted unless deleteDocuments=false',
					documented(200, ConnectorDeleted, 'Disconnected', [404]),
				),
			},
		)
		.post(
			'/ns/:namespace/connectors/:id/sync',
			async ({ params, scope, principal, set }) => {
				const connection = await owned(scope, principal, params.namespace, params.id)
				requireUnrestricted(principal, 'syncing connectors')
				const queued = await connections.sync(scope, connection.id)
				set.status = 202
				return queued
			},
			{
				params: ConnectorParams,
				detail: detail(
					'postNsByNamespaceConnectorsByIdSync',
					'Queue a sync now (202); 409 while one is running',
					documented(202, SyncQueued, 'Sync queued', [404, 409]),
				),
			},
		)
}
