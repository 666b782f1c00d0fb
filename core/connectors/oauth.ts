import { CodeChallengeMethod, generateCodeVerifier, OAuth2Client, OAuth2RequestError, type OAuth2Tokens } from 'arctic'
import type { OAuth2Auth, OAuthApp, TokenSet } from '../plugins/connector.ts'

/** The provider refused a grant (a bad code, a revoked refresh token): the user must authorize again. */
export class GrantRefusedError extends Error {}

export function newCodeVerifier(): string {
	return generateCodeVerifier()
}

/** The provider's authorization page for this connection, with state and (when declared) a PKCE challenge. */
export function authorizationUrl(
	auth: OAuth2Auth,
	app: OAuthApp,
	input: { redirectUri: string; state: string; verifier: string | null },
): string {
	const client = new OAuth2Client(app.clientId, app.clientSecret, input.redirectUri)
	const url = input.verifier
		? client.createAuthorizationURLWithPKCE(
				auth.authorizeUrl,
				input.state,
				CodeChallengeMethod.S256,
				input.verifier,
				auth.scopes,
			)
		: client.createAuthorizationURL(auth.authorizeUrl, input.state, auth.scopes)
	for (const [key, value] of Object.entries(auth.authorizeParams ?? {})) url.searchParams.set(key, value)
	return url.toString()
}

export async function exchangeCode(
	auth: OAuth2Auth,
	app: OAuthApp,
	input: { redirectUri: string; code: string; verifier: string | null },
): Promise<TokenSet> {
	const client = new OAuth2Client(app.clientId, app.clientSecret, input.redirectUri)
	return tokenSet(
		await asGrant(() => client.validateAuthorizationCode(auth.tokenUrl, input.code, input.verifier)),
		null,
	)
}

/** A fresh access token; a provider that rotates refresh tokens returns a new one, which replaces the old. */
export async function refreshTokens(auth: OAuth2Auth, app: OAuthApp, tokens: TokenSet): Promise<TokenSet> {
	if (!tokens.refreshToken) throw new GrantRefusedError('the access token expired and there is no refresh token')
	const client = new OAuth2Client(app.clientId, app.clientSecret, null)
	const refreshed = await asGrant(() =>
		client.refreshAccessToken(auth.tokenUrl, tokens.refreshToken!, auth.refreshWithScopes ? auth.scopes : []),
	)
	return tokenSet(refreshed, tokens)
}

/** Whether the provider has a revocation call (its own, or a standard revocation endpoint). */
export const revocable = (auth: OAuth2Auth) => auth.revoke !== undefined || auth.revokeUrl !== undefined

/** Best effort: revocation is asked for, and a failure does not keep a connection from being deleted. */
export async function revokeTokens(auth: OAuth2Auth, app: OAuthApp, tokens: TokenSet): Promise<void> {
	if (auth.revoke) return auth.revoke(app, tokens)
	if (!auth.revokeUrl) return
	const client = new OAuth2Client(app.clientId, app.clientSecret, null)
	await client.revokeToken(auth.revokeUrl, tokens.refreshToken ?? tokens.accessToken)
}

/** GitHub answers a refused grant with 200 and `{ error }`; arctic throws only for 400/401. */
async function asGrant(call: () => Promise<OAuth2Tokens>): Promise<OAuth2Tokens> {
	let tokens: OAuth2Tokens
	try {
		tokens = await call()
	} catch (error) {
		if (error instanceof OAuth2RequestError) {
			throw new GrantRefusedError(`${error.code}${error.description ? `: ${error.description}` : ''}`)
		}
		throw error
	}
	const data = tokens.data as { error?: string; error_description?: string; access_token?: unknown }
	if (data.error)
		throw new GrantRefusedError(`${data.error}${data.error_description ? `: ${data.error_description}` : ''}`)
	if (typeof data.access_token !== 'string') throw new GrantRefusedError('the provider returned no access token')
	return tokens
}

function tokenSet(tokens: OAuth2Tokens, previous: TokenSet | null): TokenSet {
	const data = tokens.data as { expires_in?: unknown; scope?: unknown }
	return {
		accessToken: tokens.accessToken(),
		refreshToken: tokens.hasRefreshToken() ? tokens.refreshToken() : (previous?.refreshToken ?? null),
		expiresAt: typeof data.expires_in === 'number' ? tokens.accessTokenExpiresAt().toISOString() : null,
		scopes: typeof data.scope === 'string' ? data.scope.split(/[ ,]+/).filter(Boolean) : (previous?.scopes ?? []),
	}
}
