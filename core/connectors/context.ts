import { randomBase62 } from '../ids.ts'
import type { ConnectionRecord } from '../plugins/connection-storage.ts'
import { type AnyConnector, ConnectorAuthError, type SyncContext, type TokenSet } from '../plugins/connector.ts'
import type { ConnectorDeps } from './deps.ts'
import { statusOf } from './errors.ts'
import { GrantRefusedError, refreshTokens } from './oauth.ts'
import { type ConnectionSecrets, openApp, openSecrets, type SealedApp, sealSecrets } from './secrets.ts'

/** Refresh a little before the provider's expiry, so a token never lapses in the middle of a request. */
const REFRESH_MARGIN_MS = 60_000

const expiring = (tokens: TokenSet) =>
	tokens.expiresAt !== null && Date.parse(tokens.expiresAt) - REFRESH_MARGIN_MS < Date.now()

/** Refreshes in flight, per service and connection: callers in one process share one refresh. */
const inFlight = new WeakMap<ConnectorDeps, Map<string, Promise<ConnectionSecrets>>>()

/**
 * The connection's secrets with a fresh access token. A rotated refresh token may be used once, so the refresh runs
 * under the connection's row lock (processes sharing the store take turns) and re-reads the tokens first: when another
 * process refreshed them meanwhile, its tokens are used as they are. With `refused`, the refresh is due when that
 * access token is still the current one, whatever its expiry.
 */
function refreshed(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	refused?: string,
): Promise<ConnectionSecrets> {
	const running = inFlight.get(deps) ?? new Map<string, Promise<ConnectionSecrets>>()
	inFlight.set(deps, running)
	const shared = running.get(connection.id)
	if (shared) return shared
	const auth = connector.auth
	const refresh = (async () => {
		const app = openApp(deps.secrets, connection)
		const stored = await deps.storage.connections.updateSecretsLocked(connection.id, async (sealed) => {
			const current = sealed ? openSecrets(deps.secrets, { secrets: sealed }) : {}
			if (auth.type !== 'oauth2' || !current.tokens) throw new ConnectorAuthError('the connection is not authorized')
			const due = refused === undefined ? expiring(current.tokens) : current.tokens.accessToken === refused
			if (!due) return null
			if (!app) throw new ConnectorAuthError('the connection has no OAuth application')
			try {
				return sealSecrets(deps.secrets, { ...current, tokens: await refreshTokens(auth, app, current.tokens) })
			} catch (error) {
				if (error instanceof GrantRefusedError) throw new ConnectorAuthError(`token refresh refused: ${error.message}`)
				throw error
			}
		})
		if (stored === undefined) throw new ConnectorAuthError('the connection was deleted')
		return openSecrets(deps.secrets, { secrets: stored })
	})().finally(() => running.delete(connection.id))
	running.set(connection.id, refresh)
	return refresh
}

/**
 * The options of a connection's application: a custom one's are its organization's current ones (a push topic or
 * verification token set after the connection was made counts) while the organization still uses that client.
 */
export async function currentAppOptions(
	deps: ConnectorDeps,
	connector: AnyConnector,
	orgId: string,
	app: Pick<SealedApp, 'source' | 'clientId' | 'options'>,
): Promise<Record<string, string>> {
	const settingsKey = connector.auth.type === 'oauth2' ? connector.auth.settingsKey : undefined
	if (app.source === 'custom' && settingsKey) {
		const current = await deps.settings.customCredentials({ orgId }, settingsKey)
		if (current?.clientId === app.clientId) return current.options
	}
	return app.options ?? {}
}

/** The connection's context for making, renewing and stopping its push subscriptions: its application's current options. */
export async function subscriptionContext(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
): Promise<SyncContext> {
	const ctx = syncContext(deps, connector, connection)
	if (ctx.app) ctx.app = { ...ctx.app, options: await currentAppOptions(deps, connector, connection.orgId, ctx.app) }
	return ctx
}

/** A call the provider refused for its token. */
const refusedToken = (error: unknown) => error instanceof ConnectorAuthError || statusOf(error) === 401

/** The connector's view of one connection: its own settings and tokens, refreshed (and rotated) when due. */
export function syncContext(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	signal: AbortSignal = new AbortController().signal,
): SyncContext {
	let secrets = openSecrets(deps.secrets, connection)
	const credentials = secrets.credentials ?? {}
	const secretField =
		connector.auth.type === 'credentials' ? connector.auth.fields.find((field) => field.secret)?.key : undefined
	const app = openApp(deps.secrets, connection)
	const turnOwner = `${connection.id}:${randomBase62(8)}`
	const ctx: SyncContext = {
		connectionId: connection.id,
		...(app ? { app: { clientId: app.clientId, source: app.source, options: app.options ?? {} } } : {}),
		settings: { ...(connector.defaultSettings ?? {}), ...connection.settings },
		credentials,
		metadata: connection.metadata ?? {},
		...(connection.documentLimit !== null ? { documentLimit: connection.documentLimit } : {}),
		logger: deps.logger,
		signal,
		async accessToken() {
			if (connector.auth.type !== 'oauth2' || !secrets.tokens) {
				throw new ConnectorAuthError('the connection is not authorized')
			}
			if (expiring(secrets.tokens)) secrets = await refreshed(deps, connector, connection)
			return secrets.tokens!.accessToken
		},
		async refreshAccessToken(refused) {
			if (connector.auth.type !== 'oauth2' || !secrets.tokens) {
				throw new ConnectorAuthError('the connection is not authorized')
			}
			secrets = await refreshed(deps, connector, connection, refused)
			return secrets.tokens!.accessToken
		},
		async withToken(call) {
			if (connector.auth.type !== 'oauth2') {
				try {
					return await call(secretField ? (credentials[secretField] ?? '') : '')
				} catch (error) {
					if (refusedToken(error) && !(error instanceof ConnectorAuthError)) {
						throw new ConnectorAuthError(`the provider refused the credentials: ${(error as Error).message}`)
					}
					throw error
				}
			}
			const token = await ctx.accessToken()
			try {
				return await call(token)
			} catch (error) {
				if (!refusedToken(error)) throw error
			}
			const fresh = await ctx.refreshAccessToken!(token)
			try {
				return await call(fresh)
			} catch (error) {
				if (refusedToken(error) && !(error instanceof ConnectorAuthError)) {
					throw new ConnectorAuthError(`the provider refused a freshly refreshed token: ${(error as Error).message}`)
				}
				throw error
			}
		},
		async routeSharers(routeKey) {
			const sharers = []
			for (const subscription of await deps.storage.connections.subscriptionsByRoutes(connection.provider, [
				routeKey,
			])) {
				if (subscription.connectionId === connection.id) continue
				const other = await deps.storage.connections.byId(subscription.connectionId)
				if (other?.status !== 'active') continue
				sharers.push({ settings: { ...(connector.defaultSettings ?? {}), ...other.settings }, data: subscription.data })
			}
			return sharers
		},
		async hasVersion(externalId, version) {
			return (await deps.storage.connections.item(connection.id, externalId))?.version === version
		},
		async importedIds() {
			return (await deps.storage.connections.items(connection.id)).map((item) => item.externalId)
		},
		turns: {
			take: (key, holdMs, gapMs) => deps.storage.connections.takeTurn(key, turnOwner, holdMs, gapMs),
			end: (key, nextInMs) => deps.storage.connections.endTurn(key, turnOwner, nextInMs),
		},
	}
	return ctx
}
