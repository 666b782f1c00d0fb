import { badRequest } from '../errors.ts'
import { newId, randomBase62 } from '../ids.ts'
import type { ConnectionRecord } from '../plugins/connection-storage.ts'
import type { AnyConnector, OAuth2Auth } from '../plugins/connector.ts'
import { sameBrowser, startLink } from './browser-binding.ts'
import type { ConnectorDeps } from './deps.ts'
import { activate } from './lifecycle.ts'
import { authorizationUrl, exchangeCode, GrantRefusedError, newCodeVerifier } from './oauth.ts'
import { openApp, type SealedApp, sealApp, sealSecrets } from './secrets.ts'
import { openState, sealState } from './state.ts'

/** How long an authorization link (and its state) stays valid. */
export const AUTH_LINK_SECONDS = 3600

export const callbackUrl = (baseUrl: string, provider: string) => `${baseUrl}/v3/connections/auth/callback/${provider}`

/**
 * The application a new connection authorizes with: the organization's own when it enabled one in its settings,
 * else the server's from the environment; with neither, a 400 that says what to configure.
 */
export async function applicationFor(
	deps: ConnectorDeps,
	orgId: string,
	connector: AnyConnector,
	auth: OAuth2Auth,
): Promise<SealedApp> {
	if (auth.settingsKey) {
		const custom = await deps.settings.customCredentials({ orgId }, auth.settingsKey)
		if (custom) {
			const { clientId, clientSecret, options } = custom
			return { clientId, clientSecret, source: 'custom', options }
		}
	}
	const clientId = deps.env[auth.env.clientId]
	const clientSecret = deps.env[auth.env.clientSecret]
	if (clientId && clientSecret) return { clientId, clientSecret, source: 'server' }
	const custom = auth.settingsKey
		? `, or ${auth.settingsKey}ClientId, ${auth.settingsKey}ClientSecret and ${auth.settingsKey}CustomKeyEnabled: true in the organization settings (PATCH /v3/settings)`
		: ''
	throw badRequest(
		`${connector.displayName} has no OAuth application configured: set ${auth.env.clientId} and ${auth.env.clientSecret} on the server${custom}`,
	)
}

/** A pending authorization for `connection`: the link to send the user to. */
export function pendingAuthorization(
	deps: ConnectorDeps,
	auth: OAuth2Auth,
	app: SealedApp,
	input: { orgId: string; connectionId: string; provider: string; baseUrl: string },
) {
	const nonce = randomBase62(32)
	const verifier = auth.pkce ? newCodeVerifier() : null
	const expiresAt = Date.now() + AUTH_LINK_SECONDS * 1000
	const state = sealState(deps.secrets, { ...input, nonce, expiresAt })
	const providerUrl = authorizationUrl(auth, app, {
		redirectUri: callbackUrl(input.baseUrl, input.provider),
		state,
		verifier,
	})
	return {
		authLink: startLink(deps, input.baseUrl, input.provider, providerUrl),
		auth: {
			nonce,
			verifier: verifier ? deps.secrets.seal(verifier) : null,
			expiresAt: new Date(expiresAt).toISOString(),
		},
		app: sealApp(deps.secrets, app),
	}
}

export const newConnectionId = () => newId()

/**
 * Required scopes the token answer did not grant. A token answer without `scope` granted what was asked (RFC 6749
 * section 5.1), so only a stated scope list is compared.
 */
export function missingScopes(required: string[], granted: string[]): string[] {
	if (granted.length === 0) return []
	const have = new Set(granted)
	return required.filter((scope) => !have.has(scope))
}

export type CallbackOutcome =
	| { ok: true; connection: ConnectionRecord }
	| { ok: false; error: string; connection: ConnectionRecord | null }

/**
 * The provider's redirect back: the state must be this service's, unexpired, unused and for this provider, and the
 * browser the one that opened the link (`cookies`, its Cookie header); the code is exchanged (with the PKCE verifier)
 * and the connection becomes active.
 */
export async function completeAuthorization(
	deps: ConnectorDeps,
	connector: AnyConnector,
	query: { state?: string; code?: string; error?: string; error_description?: string },
	cookies: string | null,
): Promise<CallbackOutcome> {
	const auth = connector.auth
	if (auth.type !== 'oauth2') throw badRequest('this provider does not use OAuth')
	if (!query.state) throw badRequest('the callback has no state parameter')
	const state = openState(deps.secrets, query.state)
	if (!state || state.provider !== connector.provider) throw badRequest('the state parameter is invalid')
	if (state.expiresAt < Date.now()) throw badRequest('the authorization link expired; create the connection again')
	// Refused before the state is used, so the browser that did open the link can still finish.
	if (!sameBrowser(state, cookies)) {
		throw badRequest('this authorization was started in another browser: open the authorization link in this one')
	}
	const pending = await deps.storage.connections.consumeAuth(state.orgId, state.connectionId, state.nonce)
	if (!pending) throw badRequest('the state was already used, or its connection is gone')
	const connection = (await deps.storage.connections.byId(state.connectionId))!
	const fail = async (error: string): Promise<CallbackOutcome> => {
		await deps.storage.connections.update(connection.id, { status: 'error', error })
		return { ok: false, error, connection: { ...connection, status: 'error', error } }
	}
	if (query.error) return fail(`${query.error}${query.error_description ? `: ${query.error_description}` : ''}`)
	if (!query.code) return fail('the provider sent no authorization code')
	const app = openApp(deps.secrets, connection)
	if (!app) return fail('the connection has no OAuth application')
	let tokens: Awaited<ReturnType<typeof exchangeCode>>
	try {
		tokens = await exchangeCode(auth, app, {
			redirectUri: callbackUrl(state.baseUrl, connector.provider),
			code: query.code,
			verifier: pending.verifier ? deps.secrets.open(pending.verifier) : null,
		})
	} catch (error) {
		if (error instanceof GrantRefusedError) return fail(`the provider refused the code: ${error.message}`)
		return fail(`the provider's token endpoint could not be reached: ${(error as Error).message}`)
	}
	const missing = missingScopes(auth.requiredScopes ?? [], tokens.scopes)
	if (missing.length > 0) {
		// The grant stays at the provider (revoking it could end another connection's grant of the same account).
		return fail(
			`the provider granted less than the connector needs: the permission ${missing.join(', ')} was not granted; authorize again and allow it`,
		)
	}
	let email: string | null = null
	let accountId: string | null = null
	try {
		const identity = await auth.identity?.(tokens)
		email = identity?.email ?? null
		accountId = identity?.accountId ?? null
	} catch (error) {
		deps.logger.warn('could not read who authorized a connection', {
			connectionId: connection.id,
			error: String(error),
		})
	}
	await deps.storage.connections.update(connection.id, {
		status: 'active',
		error: null,
		email,
		accountId,
		secrets: sealSecrets(deps.secrets, { tokens }),
	})
	const active = (await deps.storage.connections.byId(connection.id))!
	await activate(deps, connector, active, state.baseUrl)
	return { ok: true, connection: active }
}
