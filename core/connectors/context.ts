import type { ConnectionRecord } from '../plugins/connection-storage.ts'
import { type AnyConnector, ConnectorAuthError, type SyncContext, type TokenSet } from '../plugins/connector.ts'
import type { ConnectorDeps } from './deps.ts'
import { GrantRefusedError, refreshTokens } from './oauth.ts'
import { type ConnectionSecrets, openApp, openSecrets, sealSecrets } from './secrets.ts'

/** Refresh a little before the provider's expiry, so a token never lapses in the middle of a request. */
const REFRESH_MARGIN_MS = 60_000

const expiring = (tokens: TokenSet) =>
	tokens.expiresAt !== null && Date.parse(tokens.expiresAt) - REFRESH_MARGIN_MS < Date.now()

/** Refreshes in flight, per connection: a rotated refresh token may be used once, so two callers share one refresh. */
const inFlight = new Map<string, Promise<ConnectionSecrets>>()

/**
 * The connection's secrets with a fresh access token, read again first (another caller may have refreshed it).
 * With `refused`, the refresh is due when that access token is still the current one, whatever its expiry.
 */
function refreshed(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connectionId: string,
	refused?: string,
): Promise<ConnectionSecrets> {
	const running = inFlight.get(connectionId)
	if (running) return running
	const refresh = (async () => {
		const connection = await deps.storage.connections.byId(connectionId)
		if (!connection) throw new ConnectorAuthError('the connection was deleted')
		const current = openSecrets(deps.secrets, connection)
		const auth = connector.auth
		if (auth.type !== 'oauth2' || !current.tokens) throw new ConnectorAuthError('the connection is not authorized')
		const due = refused === undefined ? expiring(current.tokens) : current.tokens.accessToken === refused
		if (!due) return current
		const app = openApp(deps.secrets, connection)
		if (!app) throw new ConnectorAuthError('the connection has no OAuth application')
		let next: ConnectionSecrets
		try {
			next = { ...current, tokens: await refreshTokens(auth, app, current.tokens) }
		} catch (error) {
			if (error instanceof GrantRefusedError) throw new ConnectorAuthError(`token refresh refused: ${error.message}`)
			throw error
		}
		await deps.storage.connections.update(connectionId, { secrets: sealSecrets(deps.secrets, next) })
		return next
	})().finally(() => inFlight.delete(connectionId))
	inFlight.set(connectionId, refresh)
	return refresh
}

/** The connector's view of one connection: its own settings and tokens, refreshed (and rotated) when due. */
export function syncContext(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	signal: AbortSignal = new AbortController().signal,
): SyncContext {
	let secrets = openSecrets(deps.secrets, connection)
	const credentials = secrets.credentials ?? {}
	return {
		connectionId: connection.id,
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
			if (expiring(secrets.tokens)) secrets = await refreshed(deps, connector, connection.id)
			return secrets.tokens!.accessToken
		},
		async refreshAccessToken(refused) {
			if (connector.auth.type !== 'oauth2' || !secrets.tokens) {
				throw new ConnectorAuthError('the connection is not authorized')
			}
			secrets = await refreshed(deps, connector, connection.id, refused)
			return secrets.tokens!.accessToken
		},
		async hasVersion(externalId, version) {
			return (await deps.storage.connections.item(connection.id, externalId))?.version === version
		},
	}
}
