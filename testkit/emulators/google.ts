import { createHash } from 'node:crypto'
import { faultLayer } from './faults.ts'

/**
 * A local Google: the OAuth endpoints (consent that redirects at once, the token endpoint with PKCE, refresh and
 * `invalid_grant` after revocation, revoke, userinfo) on real HTTP at 127.0.0.1. Each API's paths are added by its
 * own module (`google-drive.ts`, `google-gmail.ts`) with `route`, on this one origin: googleapis keeps only the
 * origin of its `rootUrl`, so Google's real paths are served at the root.
 */

export interface GoogleEmulatorOptions {
	clientId?: string
	clientSecret?: string
	/** The account that consents. */
	email?: string
	/** Seconds an access token lives (Google: 3599). */
	tokenLifetimeSeconds?: number
}

export interface RouteContext {
	request: Request
	url: URL
	/** The groups of the route's pattern. */
	params: string[]
	/** The authorized account (routes declared `{ public: true }` get an empty string). */
	email: string
}

export type RouteHandler = (context: RouteContext) => Response | Promise<Response>

interface Route {
	method: string
	pattern: RegExp
	handler: RouteHandler
	public: boolean
}

interface AccessGrant {
	email: string
	expiresAt: number
	refreshToken: string
	revoked: boolean
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
	new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

/** An error in the shape Google's JSON APIs answer with. */
export const apiError = (code: number, reason: string, message: string) =>
	json(
		{
			error: {
				code,
				message,
				errors: [{ domain: 'global', reason, message }],
				status: code === 404 ? 'NOT_FOUND' : code === 401 ? 'UNAUTHENTICATED' : 'FAILED_PRECONDITION',
			},
		},
		code,
	)

/** Google's OAuth errors: 400 (401 for a bad client) with `{ error, error_description }`. */
const oauthError = (error: string, description: string, status = 400) =>
	json({ error, error_description: description }, status)

export function startGoogleEmulator(options: GoogleEmulatorOptions = {}) {
	const clientId = options.clientId ?? 'emulated-client.apps.googleusercontent.com'
	const clientSecret = options.clientSecret ?? 'emulated-secret'
	const email = options.email ?? 'ada@example.com'
	const lifetime = options.tokenLifetimeSeconds ?? 3599
	const codes = new Map<
		string,
		{ redirectUri: string; challenge: string | null; method: string | null; offline: boolean; scope: string }
	>()
	const access = new Map<string, AccessGrant>()
	/** Refresh token -> whether it still works. */
	const refresh = new Map<string, { revoked: boolean; scope: string }>()
	const routes: Route[] = []
	const log: string[] = []

	function issue(refreshToken: string, scope: string, withRefresh: boolean) {
		const token = `ya29.${crypto.randomUUID().replaceAll('-', '')}`
		access.set(token, { email, expiresAt: Date.now() + lifetime * 1000, refreshToken, revoked: false })
		return {
			access_token: token,
			expires_in: lifetime,
			token_type: 'Bearer',
			scope,
			...(withRefresh ? { refresh_token: refreshToken } : {}),
		}
	}

	function clientOf(request: Request, form: URLSearchParams): boolean {
		const header = request.headers.get('authorization')
		if (header?.startsWith('Basic ')) {
			const [id, secret] = Buffer.from(header.slice(6), 'base64').toString().split(':').map(decodeURIComponent)
			return id === clientId && secret === clientSecret
		}
		return form.get('client_id') === clientId && form.get('client_secret') === clientSecret
	}

	async function token(request: Request): Promise<Response> {
		const form = new URLSearchParams(await request.text())
		if (!clientOf(request, form)) return oauthError('invalid_client', 'The OAuth client was not found.', 401)
		if (form.get('grant_type') === 'refresh_token') {
			const grant = refresh.get(form.get('refresh_token') ?? '')
			if (!grant || grant.revoked) return oauthError('invalid_grant', 'Token has been expired or revoked.')
			log.push('POST /token refresh')
			// Google does not rotate refresh tokens: the answer carries none.
			return json(issue(form.get('refresh_token')!, grant.scope, false))
		}
		if (form.get('grant_type') !== 'authorization_code')
			return oauthError('unsupported_grant_type', 'Invalid grant_type')
		const code = codes.get(form.get('code') ?? '')
		codes.delete(form.get('code') ?? '')
		if (!code) return oauthError('invalid_grant', 'Malformed auth code.')
		if (code.redirectUri !== form.get('redirect_uri')) return oauthError('redirect_uri_mismatch', 'Bad Request')
		if (code.challenge) {
			const verifier = form.get('code_verifier') ?? ''
			const expected = code.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier
			if (expected !== code.challenge) return oauthError('invalid_grant', 'Invalid code verifier.')
		}
		log.push('POST /token code')
		const refreshToken = `1//${crypto.randomUUID().replaceAll('-', '')}`
		refresh.set(refreshToken, { revoked: false, scope: code.scope })
		return json(issue(refreshToken, code.scope, code.offline))
	}

	async function revoke(request: Request, url: URL): Promise<Response> {
		const form = new URLSearchParams(await request.text())
		const value = form.get('token') ?? url.searchParams.get('token') ?? ''
		const grant = access.get(value)
		const refreshToken = grant?.refreshToken ?? value
		if (!grant && !refresh.has(value)) return oauthError('invalid_token', 'Bad Request')
		revokeGrant(refreshToken)
		log.push('POST /revoke')
		return json({})
	}

	/** A refresh token and every access token issued from it stop working. */
	function revokeGrant(refreshToken: string) {
		const grant = refresh.get(refreshToken)
		if (grant) grant.revoked = true
		for (const token of access.values()) if (token.refreshToken === refreshToken) token.revoked = true
	}

	function authorized(request: Request): AccessGrant | null {
		const bearer = (request.headers.get('authorization') ?? '').replace(/^Bearer\s+/i, '')
		const grant = access.get(bearer)
		if (!grant || grant.revoked || grant.expiresAt < Date.now()) return null
		return grant
	}

	function consent(url: URL): Response {
		if (url.searchParams.get('client_id') !== clientId)
			return oauthError('invalid_client', 'The OAuth client was not found.', 401)
		const redirect = new URL(url.searchParams.get('redirect_uri') ?? '')
		const code = `4/${crypto.randomUUID()}`
		codes.set(code, {
			redirectUri: redirect.toString(),
			challenge: url.searchParams.get('code_challenge'),
			method: url.searchParams.get('code_challenge_method'),
			offline: url.searchParams.get('access_type') === 'offline',
			scope: url.searchParams.get('scope') ?? '',
		})
		log.push(`GET /o/oauth2/v2/auth prompt=${url.searchParams.get('prompt')}`)
		redirect.searchParams.set('code', code)
		redirect.searchParams.set('state', url.searchParams.get('state') ?? '')
		return new Response(null, { status: 302, headers: { location: redirect.toString() } })
	}

	const route = (method: string, pattern: RegExp, handler: RouteHandler, opts: { public?: boolean } = {}) => {
		routes.push({ method, pattern, handler, public: opts.public ?? false })
	}
	route('GET', /^\/o\/oauth2\/v2\/auth$/, ({ url }) => consent(url), { public: true })
	route('POST', /^\/token$/, ({ request }) => token(request), { public: true })
	route('POST', /^\/revoke$/, ({ request, url }) => revoke(request, url), { public: true })
	route('GET', /^\/oauth2\/v2\/userinfo$/, ({ email }) =>
		json({ id: '1180000000001', email, verified_email: true, picture: 'https://example.com/ada.png' }),
	)

	const faults = faultLayer('google')
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(request) {
			const fault = faults.before(request)
			if (fault) return fault
			const url = new URL(request.url)
			for (const candidate of routes) {
				if (candidate.method !== request.method) continue
				const match = candidate.pattern.exec(url.pathname)
				if (!match) continue
				let grantEmail = ''
				if (!candidate.public) {
					const grant = authorized(request)
					if (!grant) return apiError(401, 'authError', 'Request had invalid authentication credentials.')
					grantEmail = grant.email
					log.push(`${request.method} ${url.pathname}${url.search}`)
				}
				const params = match.slice(1).map((part) => decodeURIComponent(part ?? ''))
				return candidate.handler({ request, url, params, email: grantEmail })
			}
			return apiError(404, 'notFound', `no route ${request.method} ${url.pathname}`)
		},
	})
	const url = `http://127.0.0.1:${server.port}`

	return {
		faults,
		url,
		clientId,
		clientSecret,
		email,
		log,
		/** Adds a route (checked after the ones before it); it needs a live access token unless `public`. */
		route,
		/** The user revoked the application: every grant stops working (refreshes answer `invalid_grant`). */
		revokeAll() {
			for (const refreshToken of refresh.keys()) revokeGrant(refreshToken)
		},
		/** Every access token expires now (the next call must refresh). */
		expireAccessTokens() {
			for (const grant of access.values()) grant.expiresAt = 0
		},
		/** An access token of the account, through the consent page and the token endpoint (as a user would). */
		async accessToken(scope: string): Promise<string> {
			const redirectUri = 'http://127.0.0.1/callback'
			const consent = new URL(`${url}/o/oauth2/v2/auth`)
			consent.search = new URLSearchParams({
				client_id: clientId,
				redirect_uri: redirectUri,
				response_type: 'code',
				scope,
				access_type: 'offline',
			}).toString()
			const answer = await fetch(consent, { redirect: 'manual' })
			const code = new URL(answer.headers.get('location')!).searchParams.get('code')!
			const response = await fetch(`${url}/token`, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: new URLSearchParams({
					grant_type: 'authorization_code',
					code,
					redirect_uri: redirectUri,
					client_id: clientId,
					client_secret: clientSecret,
				}),
			})
			return ((await response.json()) as { access_token: string }).access_token
		},
		refreshTokenIsRevoked: (refreshToken: string) => refresh.get(refreshToken)?.revoked ?? true,
		liveRefreshTokens: () => [...refresh.values()].filter((grant) => !grant.revoked).length,
		stop: () => server.stop(true),
	}
}

export type GoogleEmulator = ReturnType<typeof startGoogleEmulator>
