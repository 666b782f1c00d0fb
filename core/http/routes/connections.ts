import { Elysia, t } from 'elysia'
import { requireUnrestricted } from '../../auth/restriction.ts'
import type { ConnectionView } from '../../connectors/connection-service.ts'
import { badRequest } from '../../errors.ts'
import type { SyncRunRecord } from '../../plugins/connection-storage.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { ErrorResponse, errorResponses } from '../schemas/common.ts'
import {
	ConfigureBody,
	ConfigureResponse,
	Connection,
	CreateConnectionBody,
	CreateConnectionResponse,
	DeletedConnection,
	ImportedDocument,
	Provider,
	RequiredTagsBody,
	ResourcesQuery,
	ResourcesResponse,
	SyncFailure,
	SyncRun,
	TagsBody,
} from '../schemas/connections.ts'

const detail = { tags: ['connections'] }

const runOut = (run: SyncRunRecord) => ({
	id: run.id,
	trigger: run.trigger,
	status: run.status,
	errorCode: run.errorCode,
	error: run.error,
	added: run.added,
	updated: run.updated,
	deleted: run.deleted,
	skipped: run.skipped,
	failed: run.failed,
	notes: run.notes,
	retryAt: run.retryAt,
	startedAt: run.startedAt,
	completedAt: run.completedAt,
})

/** A connection as the API shows it: never its tokens, application or cursor. */
export const connectionOut = (connection: ConnectionView) => ({
	id: connection.id,
	provider: connection.provider,
	createdAt: connection.createdAt,
	updatedAt: connection.updatedAt,
	containerTags: connection.containerTags,
	documentLimit: connection.documentLimit,
	email: connection.email,
	expiresAt: null,
	metadata: connection.metadata,
	status: connection.status,
	error: connection.error,
	lastSyncRun: connection.lastSyncRun ? runOut(connection.lastSyncRun) : null,
})

/** The base URL OAuth callbacks and webhooks are registered at. */
export const baseUrlOf = (request: Request, publicUrl: string | null) =>
	(publicUrl ?? new URL(request.url).origin).replace(/\/+$/, '')

export function connectionRoutes({ verify, connections, publicUrl }: RouteDeps) {
	return (
		new Elysia({ prefix: '/v3/connections' })
			.use(bearerAuth(verify))
			// Connections belong to the organization (they write to tags of their own choosing): like settings, only an
			// unrestricted key manages them.
			.onBeforeHandle(({ principal }) => requireUnrestricted(principal, 'managing connections'))
			.post(
				'/list',
				async ({ body, scope }) => (await connections.list(scope, body.containerTags)).map(connectionOut),
				{
					body: TagsBody,
					response: { 200: t.Array(Connection), ...errorResponses },
					detail: { ...detail, summary: "The organization's connections (sharing one of the tags, when given)" },
				},
			)
			.post(
				'/:provider',
				({ body, scope, params, request }) =>
					connections.create(scope, params.provider, body, baseUrlOf(request, publicUrl)),
				{
					body: CreateConnectionBody,
					response: { 200: CreateConnectionResponse, ...errorResponses },
					detail: {
						...detail,
						summary:
							'Create a connection: OAuth providers answer with an authorization link valid for one hour; credential providers (API key in metadata) start syncing at once',
					},
				},
			)
			.post(
				'/:provider/connection',
				async ({ body, scope, params }) =>
					connectionOut(await connections.getByTags(scope, params.provider, body.containerTags)),
				{
					body: RequiredTagsBody,
					response: { 200: Connection, ...errorResponses },
					detail: { ...detail, summary: "The provider's connection sharing one of the container tags" },
				},
			)
			.post(
				'/:provider/documents',
				async ({ body, scope, params }) =>
					(await connections.documents(scope, params.provider, body.containerTags)).map((document) => ({
						id: document.id,
						createdAt: document.createdAt.toISOString(),
						updatedAt: document.updatedAt.toISOString(),
						status: document.status,
						summary: document.summary,
						title: document.title,
						type: document.type,
					})),
				{
					body: TagsBody,
					response: { 200: t.Array(ImportedDocument), ...errorResponses },
					detail: { ...detail, summary: "Documents the provider's connections imported" },
				},
			)
			.post(
				'/:provider/import',
				async ({ body, scope, params, set }) => {
					await connections.import(scope, params.provider, body.containerTags)
					set.status = 202
					set.headers['content-type'] = 'text/plain; charset=utf-8'
					return 'Importing connections...'
				},
				{
					body: TagsBody,
					response: { 202: t.String(), ...errorResponses },
					detail: {
						...detail,
						summary: 'Sync the matching connections now (a sync already queued or running is joined, not repeated)',
					},
				},
			)
			.get('/providers', () => connections.providers(), {
				response: { 200: t.Array(Provider), ...errorResponses },
				detail: {
					...detail,
					summary: 'The registered connectors (an extension): what the console and settings offer',
				},
			})
			.get(
				'/:connectionId',
				async ({ scope, params }) => connectionOut(await connections.get(scope, params.connectionId)),
				{
					response: { 200: Connection, ...errorResponses },
					detail: { ...detail, summary: 'A connection, with its status and last sync run' },
				},
			)
			.delete(
				'/:connectionId',
				({ scope, params, query, body }) => {
					const target = params.connectionId
					// DELETE /v3/connections/{provider} (tags in the body) and /{connectionId} share one path shape.
					if (connections.isProvider(target)) {
						if (!body?.containerTags?.length) {
							throw badRequest('containerTags: deleting by provider needs at least one container tag')
						}
						return connections.deleteByProvider(scope, target, body.containerTags, query.deleteDocuments !== 'false')
					}
					return connections.delete(scope, target, query.deleteDocuments !== 'false')
				},
				{
					query: t.Object({
						deleteDocuments: t.Optional(t.UnionEnum(['true', 'false'], { error: 'must be "true" or "false"' })),
					}),
					body: t.Optional(t.Nullable(TagsBody)),
					response: { 200: DeletedConnection, ...errorResponses },
					detail: {
						...detail,
						summary:
							'Delete a connection by id, or by provider and containerTags (body). deleteDocuments (default true) also deletes the documents it imported; false keeps them, detached',
					},
				},
			)
			.get(
				'/:connectionId/resources',
				async ({ scope, params, query }) => {
					const page = await connections.resources(scope, params.connectionId, {
						page: query.page ?? 1,
						perPage: query.per_page ?? 30,
						parentId: query.parent_id ?? null,
					})
					// The contract's ResourcePage is camelCase; the published API names the count total_count.
					return {
						resources: page.resources,
						...(page.totalCount !== undefined ? { total_count: page.totalCount } : {}),
					}
				},
				{
					query: ResourcesQuery,
					response: { 200: ResourcesResponse, 501: ErrorResponse, ...errorResponses },
					detail: { ...detail, summary: 'What the connection can sync (GitHub: repositories)' },
				},
			)
			// The router names a POST's first segment once for all of them: here it holds the connection id.
			.post(
				'/:provider/configure',
				({ scope, params, body, request }) =>
					connections.configure(scope, params.provider, body.resources, baseUrlOf(request, publicUrl)),
				{
					body: ConfigureBody,
					response: { 200: ConfigureResponse, 501: ErrorResponse, ...errorResponses },
					detail: { ...detail, summary: 'Choose what the connection syncs; registers webhooks and starts a sync' },
				},
			)
			.get(
				'/:connectionId/sync-runs',
				async ({ scope, params }) => ({
					syncRuns: (await connections.runs(scope, params.connectionId, 50)).map(runOut),
				}),
				{
					response: { 200: t.Object({ syncRuns: t.Array(SyncRun) }), ...errorResponses },
					detail: { ...detail, summary: 'The connection’s last 50 sync runs, newest first' },
				},
			)
			.get(
				'/:connectionId/sync-runs/:runId/failures',
				async ({ scope, params }) => ({
					failures: (await connections.failures(scope, params.connectionId, params.runId)).map((failure) => ({
						id: failure.id,
						externalId: failure.externalId,
						error: failure.error,
						permanent: failure.permanent,
						createdAt: failure.createdAt,
					})),
				}),
				{
					response: { 200: t.Object({ failures: t.Array(SyncFailure) }), ...errorResponses },
					detail: { ...detail, summary: 'The items a sync run could not import, and why' },
				},
			)
	)
}
