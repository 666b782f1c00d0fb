import { afterAll, describe, expect, it } from 'bun:test'
import { auth as googleAuth, oauth2 } from 'googleapis/build/src/apis/oauth2/index.js'
import { googleApiOptions, googleCalls, googleOAuth } from '../../connectors/google/index.ts'
import {
	authorizationUrl,
	exchangeCode,
	GrantRefusedError,
	newCodeVerifier,
	refreshTokens,
	revokeTokens,
} from '../../core/connectors/oauth.ts'
import { accountIdOf, startGoogleEmulator } from '../../testkit/emulators/google.ts'

describe('Google OAuth (shared by Drive and Gmail)', () => {
	const google = startGoogleEmulator({ tokenLifetimeSeconds: 60 })
	const app = { clientId: google.clientId, clientSecret: google.clientSecret }
	const declaration = googleOAuth({
		accountsUrl: google.url,
		oauthUrl: google.url,
		apiUrl: google.url,
		scopes: ['https://www.googleapis.com/auth/drive.readonly'],
	})
	const redirectUri = 'http://localhost/v3/connections/auth/callback/google-drive'
	afterAll(() => google.stop())

	async function consent() {
		const verifier = newCodeVerifier()
		const link = new URL(authorizationUrl(declaration, app, { redirectUri, state: 'state-1', verifier }))
		const answer = await fetch(link, { redirect: 'manual' })
		const code = new URL(answer.headers.get('location')!).searchParams.get('code')!
		return { link, verifier, code }
	}

	it('asks for offline access with consent forced and PKCE, and gets a refresh token', async () => {
		const { link, verifier, code } = await consent()
		expect(link.searchParams.get('access_type')).toBe('offline')
		expect(link.searchParams.get('prompt')).toBe('consent')
		expect(link.searchParams.get('code_challenge_method')).toBe('S256')
		expect(link.searchParams.get('scope')).toContain('userinfo.email')
		expect(declaration.env).toEqual({ clientId: 'GOOGLE_CLIENT_ID', clientSecret: 'GOOGLE_CLIENT_SECRET' })
		expect(declaration.settingsKey).toBe('googleDrive')
		const tokens = await exchangeCode(declaration, app, { redirectUri, code, verifier })
		expect(tokens.refreshToken).toStartWith('1//')
		expect(Date.parse(tokens.expiresAt!)).toBeGreaterThan(Date.now())
		expect(await declaration.identity!(tokens)).toEqual({ email: google.email, accountId: accountIdOf(google.email) })
		expect(declaration.grantGroup).toBe('google')
		expect(declaration.requiredScopes).toEqual(['https://www.googleapis.com/auth/drive.readonly'])
	})

	it('refuses a code without the right PKCE verifier', async () => {
		const { code } = await consent()
		await expect(exchangeCode(declaration, app, { redirectUri, code, verifier: newCodeVerifier() })).rejects.toThrow(
			GrantRefusedError,
		)
	})

	it('refreshes, keeping the refresh token Google does not rotate; after revocation a refresh is invalid_grant', async () => {
		const { verifier, code } = await consent()
		const tokens = await exchangeCode(declaration, app, { redirectUri, code, verifier })
		const refreshed = await refreshTokens(declaration, app, tokens)
		expect(refreshed.accessToken).not.toBe(tokens.accessToken)
		expect(refreshed.refreshToken).toBe(tokens.refreshToken)
		await revokeTokens(declaration, app, refreshed)
		expect(google.refreshTokenIsRevoked(tokens.refreshToken!)).toBe(true)
		const refused = await refreshTokens(declaration, app, refreshed).catch((error) => error)
		expect(refused).toBeInstanceOf(GrantRefusedError)
		expect(refused.message).toContain('invalid_grant')
		// As Google answers it: 400 with a JSON error.
		const raw = await fetch(`${google.url}/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({
				grant_type: 'refresh_token',
				refresh_token: tokens.refreshToken!,
				client_id: google.clientId,
				client_secret: google.clientSecret,
			}),
		})
		expect(raw.status).toBe(400)
		expect(raw.headers.get('content-type')).toContain('application/json')
		expect(await raw.json()).toEqual({
			error: 'invalid_grant',
			error_description: 'Token has been expired or revoked.',
		})
	})

	it("builds a googleapis client on the connection's token and the configured root URL", async () => {
		const { verifier, code } = await consent()
		const tokens = await exchangeCode(declaration, app, { redirectUri, code, verifier })
		let asked = 0
		const ctx = {
			connectionId: 'connection-test',
			signal: new AbortController().signal,
			withToken: async <T>(call: (token: string) => Promise<T>) => {
				asked++
				return call(tokens.accessToken)
			},
		}
		const calls = googleCalls(googleAuth.OAuth2, ctx, 'https://www.googleapis.com/auth/userinfo.email')
		const client = oauth2({ version: 'v2', ...googleApiOptions(calls, google.url) })
		const { data } = await calls.call(() => client.userinfo.get())
		expect(data.email).toBe(google.email)
		expect(asked).toBe(1)
		expect(google.log.at(-1)).toBe('GET /oauth2/v2/userinfo')
	})
})
