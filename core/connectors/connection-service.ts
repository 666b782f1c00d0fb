import type { Scope } from '../domain/types.ts'
import { badRequest, notFound, ServiceError } from '../errors.ts'
import type { ConnectionRecord, SyncRunRecord } from '../plugins/connection-storage.ts'
import type { AnyConnector, SyncContext } from '../plugins/connector.ts'
import { applicationFor, newConnectionId, pendingAuthorization } from './authorize.ts'
import { syncContext } from './context.ts'
import type { ConnectorDeps } from './deps.ts'
import { activate, enqueueSync, expire, isRevoked, resubscribe, teardown } from './lifecycle.ts'
import { connectorFor } from './providers.ts'
import { sealSecrets } from './secrets.ts'

export interface CreateConnectionInput {
	containerTag?: string
	containerTags?: string[]
	documentLimit?: number
	metadata?: Record<string, string | number | boolean> | null
	redirectUrl?: string
}

export interface ProviderView {
	provider: string
	displayName: string
	authType: 'oauth2' | 'credentials' | 'none'
	/** What a user fills in at creation, sent in the create body's `metadata`: credentials and connection options. */
	fields: { key: string; label: string; secret: boolean }[]
	/** The organization settings prefix of a custom OAuth application; null when organizations cannot bring one. */
	settingsKey: string | null
	/** Hours between scheduled syncs; null: on demand and webhooks only. */
	scheduleEveryHours: number | null
	webhooks: boolean
	/** Whether the user picks resources (repositories, folders) before syncing. */
	resources: boolean
	/** OAuth: whether the server has its own application (the environment variables are set). */
	serverAppConfigured: boolean
}

function providerView(connector: AnyConnector, env: Record<string, string | undefined>): ProviderView {
	const { auth } = connector
	return {
		provider: connector.provider,
		displayName: connector.displayName,
		authType: auth.type,
		fields: [...(auth.type === 'credentials' ? auth.fields : []), ...(connector.metadataFields ?? [])],
		settingsKey: auth.type === 'oauth2' ? (auth.settingsKey ?? null) : null,
		scheduleEveryHours: connector.schedule.everyHours,
		webhooks: connector.webhook !== undefined,
		resources: connector.resources !== undefined,
		serverAppConfigured: auth.type !== 'oauth2' || Boolean(env[auth.env.clientId] && env[auth.env.clientSecret]),
	}
}

export interface ConnectionView extends ConnectionRecord {
	lastSyncRun: SyncRunRecord | null
}

/** The connections API behind the routes; HTTP-free, so the console and the MCP server use the same operations. */
export function createConnectionService(deps: ConnectorDeps) {
	const { storage } = deps

	async function withRuns(connections: ConnectionRecord[]): Promise<ConnectionView[]> {
		const runs = await storage.connections.lastRuns(connections.map((c) => c.id))
		return connections.map((connection) => ({ ...connection, lastSyncRun: runs.get(connection.id) ?? null }))
	}

	async function owned(scope: Scope, id: string): Promise<ConnectionRecord> {
		const connection = await storage.connections.get(scope, id)
		if (!connection) throw notFound('Connection')
		return connection
	}

	async function remove(scope: Scope, connection: ConnectionRecord, deleteDocuments: boolean) {
		await teardown(deps, deps.connectors.get(connection.provider), connection)
		if (deleteDocuments) {
			const ids = (await storage.connections.items(connection.id)).map((item) => item.documentId)
			if (ids.length > 0) await deps.documents.deleteMany(scope, { ids })
		}
		await storage.connections.delete(scope, connection.id)
		return { id: connection.id, provider: connection.provider }
	}

	/**
	 * Runs `use` with the connection's context, as a request's work for it (resources, configure). A grant the
	 * provider refuses expires the connection, as a sync would, and is answered with a 400 saying to authorize again.
	 */
	async function withAuthorized<T>(
		connector: AnyConnector,
		connection: ConnectionRecord,
		use: (ctx: SyncContext) => Promise<T>,
	): Promise<T> {
		if (connection.status !== 'active') {
			throw badRequest(`the connection is ${connection.status}: authorize it first (it has no usable token)`)
		}
		try {
			return await use(syncContext(deps, connector, connection))
		} catch (error) {
			if (!isRevoked(error)) throw error
			const reason = error instanceof Error ? error.message : String(error)
			await expire(deps, connection, reason)
			throw badRequest(`the provider refused the connection's authorization (${reason}): authorize it again`)
		}
	}

	return {
		/** Whether a path segment names a registered connector rather than a connection. */
		isProvider: (segment: string) => deps.connectors.has(segment),
		/** The registered connectors: the one list of providers the API, the console and settings show. */
		providers: () => [...deps.connectors.values()].map((connector) => providerView(connector, deps.env)),

		async create(scope: Scope, provider: string, input: CreateConnectionInput, baseUrl: string) {
			const connector = connectorFor(deps, provider)
			// Checked here, not after the provider's callback has activated the connection.
			if (input.redirectUrl !== undefined && !/^https?:$/.test(URL.parse(input.redirectUrl)?.protocol ?? '')) {
				throw badRequest('redirectUrl: must be an absolute http(s) URL')
			}
			if (connector.validateMetadata) {
				try {
					await connector.validateMetadata(input.metadata ?? {})
				} catch (error) {
					throw badRequest((error as Error).message)
				}
			}
			const containerTags = [
				...new Set([...(input.containerTag ? [input.containerTag] : []), ...(input.containerTags ?? [])]),
			]
			if (containerTags.length === 0) containerTags.push('sm_project_default')
			const id = newConnectionId()
			const base = {
				id,
				provider,
				containerTags,
				documentLimit: input.documentLimit ?? null,
				redirectUrl: input.redirectUrl ?? null,
				settings: (connector.defaultSettings ?? {}) as Record<string, unknown>,
			}
			const auth = connector.auth
			if (auth.type === 'oauth2') {
				const app = await applicationFor(deps, scope.orgId, connector, auth)
				const pending = pendingAuthorization(deps, auth, app, {
					orgId: scope.orgId,
					connectionId: id,
					provider,
					baseUrl,
				})
				await storage.connections.create(scope, {
					...base,
					metadata: input.metadata ?? null,
					status: 'pending',
					secrets: null,
					app: pending.app,
					auth: pending.auth,
				})
				return {
					id,
					authLink: pending.authLink,
					expiresIn: '1 hour',
					...(input.redirectUrl ? { redirectsTo: input.redirectUrl } : {}),
				}
			}
			// Credentials (an API key) come in the metadata; they are sealed and never shown again.
			const metadata = { ...(input.metadata ?? {}) }
			const credentials: Record<string, string> = {}
			for (const field of auth.type === 'credentials' ? auth.fields : []) {
				const value = metadata[field.key]
				if (typeof value !== 'string' || value === '')
					throw badRequest(`metadata.${field.key} (${field.label}) is required`)
				credentials[field.key] = value
				if (field.secret) delete metadata[field.key]
			}
			let email: string | null = null
			if (auth.type === 'credentials' && auth.validate) {
				try {
					email = (await auth.validate(credentials))?.email ?? null
				} catch (error) {
					throw badRequest(`${connector.displayName} refused the credentials: ${(error as Error).message}`)
				}
			}
			const connection = await storage.connections.create(scope, {
				...base,
				metadata,
				status: 'active',
				email,
				secrets: sealSecrets(deps.secrets, { credentials }),
				app: null,
			})
			await activate(deps, connector, connection, baseUrl)
			return { id, authLink: null, expiresIn: null, ...(input.redirectUrl ? { redirectsTo: input.redirectUrl } : {}) }
		},

		async list(scope: Scope, containerTags?: string[]) {
			return withRuns(await storage.connections.list(scope, { containerTags }))
		},

		async get(scope: Scope, id: string) {
			return (await withRuns([await owned(scope, id)]))[0]!
		},

		/** The newest active connection sharing a tag, else the newest of any status (one started, never authorized). */
		async getByTags(scope: Scope, provider: string, containerTags: string[]) {
			connectorFor(deps, provider)
			const connections = await storage.connections.list(scope, { provider, containerTags })
			const connection = connections.find((candidate) => candidate.status === 'active') ?? connections[0]
			if (!connection) throw notFound('Connection')
			return (await withRuns([connection]))[0]!
		},

		async delete(scope: Scope, id: string, deleteDocuments: boolean) {
			return remove(scope, await owned(scope, id), deleteDocuments)
		},

		/** Every connection of the organization, with its schedule, subscriptions and grant (an organization reset). */
		async deleteAll(scope: Scope): Promise<number> {
			const connections = await storage.connections.list(scope, {})
			for (const connection of connections) await remove(scope, connection, false)
			return connections.length
		},

		async deleteByProvider(scope: Scope, provider: string, containerTags: string[], deleteDocuments = true) {
			connectorFor(deps, provider)
			const connections = await storage.connections.list(scope, { provider, containerTags })
			if (connections.length === 0) throw notFound('Connection')
			const results = []
			for (const connection of connections) results.push(await remove(scope, connection, deleteDocuments))
			return results[0]!
		},

		/** Documents the provider's connections (sharing one of the tags, when given) imported. */
		async documents(scope: Scope, provider: string, containerTags?: string[]) {
			connectorFor(deps, provider)
			const connections = await storage.connections.list(scope, { provider, containerTags })
			const ids = (await Promise.all(connections.map((c) => storage.connections.items(c.id))))
				.flat()
				.map((item) => item.documentId)
			return ids.length === 0 ? [] : storage.documents.getMany(scope, ids)
		},

		/** Starts a sync of each matching active connection now, or joins the one already queued. */
		async import(scope: Scope, provider: string, containerTags?: string[]) {
			connectorFor(deps, provider)
			const connections = await storage.connections.list(scope, { provider, containerTags })
			const active = connections.filter((c) => c.status === 'active')
			for (const connection of active) await enqueueSync(deps, connection.id, 'manual')
			return active.length
		},

		async resources(scope: Scope, id: string, query: { page: number; perPage: number; parentId: string | null }) {
			const connection = await owned(scope, id)
			const connector = connectorFor(deps, connection.provider)
			const spec = connector.resources
			if (!spec) {
				throw new ServiceError(501, 'Not implemented', `${connector.displayName} has no resources to choose from`)
			}
			return withAuthorized(connector, connection, (ctx) => spec.list(ctx, query))
		},

		async configure(scope: Scope, id: string, resources: Record<string, unknown>[], baseUrl: string) {
			const connection = await owned(scope, id)
			const connector = connectorFor(deps, connection.provider)
			const spec = connector.resources
			if (!spec) {
				throw new ServiceError(501, 'Not implemented', `${connector.displayName} has no resources to configure`)
			}
			let settings: Record<string, unknown>
			try {
				settings = await withAuthorized(connector, connection, (ctx) => spec.configure(ctx, resources))
			} catch (error) {
				if (error instanceof ServiceError) throw error
				throw badRequest((error as Error).message)
			}
			await storage.connections.update(connection.id, { settings })
			const configured = { ...connection, settings }
			const webhooksRegistered = await resubscribe(deps, connector, configured, baseUrl)
			await enqueueSync(deps, connection.id, 'manual')
			return {
				success: true,
				message: `${resources.length} resource(s) configured; a sync has started`,
				webhooksRegistered,
			}
		},

		/** Starts a sync of one active connection now; 409 while one is running (or queued). */
		async sync(scope: Scope, id: string) {
			const connection = await owned(scope, id)
			if (connection.status !== 'active') {
				throw new ServiceError(409, 'Conflict', `the connection is ${connection.status}: authorize it first`)
			}
			const [last] = await storage.connections.runs(scope, id, 1)
			if (last?.status === 'running')
				throw new ServiceError(409, 'Conflict', 'a sync of this connector is already running')
			await enqueueSync(deps, id, 'manual')
			return { id, status: 'queued' as const }
		},

		/** How many documents the connection imported. */
		async documentCount(scope: Scope, id: string) {
			await owned(scope, id)
			return (await storage.connections.items(id)).length
		},

		async setDocumentLimit(scope: Scope, id: string, documentLimit: number) {
			await owned(scope, id)
			await storage.connections.update(id, { documentLimit })
		},

		async runs(scope: Scope, id: string, limit: number) {
			await owned(scope, id)
			return storage.connections.runs(scope, id, limit)
		},

		async failures(scope: Scope, id: string, runId: string) {
			await owned(scope, id)
			const failures = await storage.connections.failures(scope, id, runId)
			if (!failures) throw notFound('Sync run')
			return failures
		},
	}
}

export type ConnectionService = ReturnType<typeof createConnectionService>
