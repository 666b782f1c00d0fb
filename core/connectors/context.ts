import type { ConnectionRecord } from '../plugins/connection-storage.ts'
import { type AnyConnector, ConnectorAuthError, type SyncContext } from '../plugins/connector.ts'
import type { ConnectorDeps } from './deps.ts'
import { GrantRefusedError, refreshTokens } from './oauth.ts'
import { openApp, openSecrets, sealSecrets } from './secrets.ts'

/** Refresh a little before the provider's expiry, so a token never lapses in the middle of a request. */
const REFRESH_MARGIN_MS = 60_000

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
			const auth = connector.auth
			if (auth.type !== 'oauth2' || !secrets.tokens) throw new ConnectorAuthError('the connection is not authorized')
			const tokens = secrets.tokens
			if (tokens.expiresAt && Date.parse(tokens.expiresAt) - REFRESH_MARGIN_MS < Date.now()) {
				const app = openApp(deps.secrets, connection)
				if (!app) throw new ConnectorAuthError('the connection has no OAuth application')
				try {
					secrets = { ...secrets, tokens: await refreshTokens(auth, app, tokens) }
				} catch (error) {
					if (error instanceof GrantRefusedError)
						throw new ConnectorAuthError(`token refresh refused: ${error.message}`)
					throw error
				}
				await deps.storage.connections.update(connection.id, { secrets: sealSecrets(deps.secrets, secrets) })
			}
			return secrets.tokens!.accessToken
		},
		async hasVersion(externalId, version) {
			return (await deps.storage.connections.item(connection.id, externalId))?.version === version
		},
	}
}
