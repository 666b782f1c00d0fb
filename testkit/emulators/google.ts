import { createHash } from 'node:crypto'
import { faultLayer } from './faults.ts'
import { redeemCode } from './oauth-code.ts'

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
	/** The Cloud project of the default client (Gmail checks a watch's topic against it). */
	projectId?: string
}

/**
 * What each HTTP status is called in the `status` of Google's JSON errors (the google.rpc codes), e.g. a 403 is
 * `PERMISSION_DENIED`, a 429 `RESOURCE_EXHAUSTED` (https://cloud.google.com/apis/design/errors#handling_errors).
 */
const RPC_STATUS: Record<number, string> = {
	400: 'INVALID_ARGUMENT',
	401: 'UNAUTHENTICATED',
	403: 'PERMISSION_DENIED',
	404: 'NOT_FOUND',
	409: 'ABORTED',
	412: 'FAILED_PRECONDITION',
	429: 'RESOURCE_EXHAUSTED',
	500: 'INTERNAL',
	503: 'UNAVAILABLE',
}

export interface RouteContext {
	request: Request
	url: URL
	/** The groups of the route's pattern. */
	params: string[]
	/** The authorized account (routes declared `{ public: true }` get an empty string). */
	email: string
	/** The Cloud project of the OAuth client the token was issued to (empty for public routes). */
	projectId: string
}

export type RouteHandler = (context: RouteContext) => Response | Promise<Response>

interface Route {
	method: string
	pattern: RegExp
	handler: RouteHandler
	public: boolean
	/** The token must carry one of these scopes, or Google answers 403 `insufficientPermissions`. */
	scopes: string[] | null
}

export interface RouteOptions {
	public?: boolean
	scopes?: string[]
}

interface AccessGrant {
	email: string
	expiresAt: number
	refreshToken: string
	revoked: boolean
	/** The scopes the user granted (space-separated, as the token response's `scope`). */
	scope: string
	clientId: string
}

/** A refresh token: one consent of one account to one OAuth client. */
interface RefreshGrant {
	revoked: boolean
	scope: string
	email: string
	clientId: string
}

interface Client {
	secret: string
	projectId: string
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
	new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

/**
 * An error in the shape Google's JSON APIs answer with: `{ error: { code, message, errors: [{ domain, reason,
 * message }], status } }` (https://developers.google.com/drive/api/guides/handle-errors).
 */
export const apiError = (code: number, reason: string, message: string, domain = 'global') =>
	json({ error: { code, message, errors: [{ domain, reason, message }], status: RPC_STATUS[code] ?? 'UNKNOWN' } }, code)

/**
 * Google's rate-limit answers. Drive's per-user limit is a 403 `userRateLimitExceeded` (domain `usageLimits`), its
 * project limit a 403 `rateLimitExceeded`, and further checks answer 429 (https://developers.google.com/drive/api/
 * guides/limits, .../handle-errors#resolve_a_403_error_user_rate_limit_exceeded); Gmail answers 429
 * `rateLimitExceeded` (https://developers.google.com/gmail/api/guides/handle-errors#resolve_a_429_error_too_many_requests).
 */
export type RateLimitKind = '403-user' | '403-project' | '429'
export function rateLimitError(kind: RateLimitKind): Response {
	if (kind === '403-user') return apiError(403, 'userRateLimitExceeded', 'User Rate Limit Exceeded', 'usageLimits')
	if (kind === '403-project') return apiError(403, 'rateLimitExceeded', 'Rate Limit Exceeded', 'usageLimits')
	return apiError(429, 'rateLimitExceeded', 'Rate Limit Exceeded', 'usageLimits')
}

/** A call whose token lacks the API's scope (the user unticked it on the consent screen). */
const insufficientScopes = () =>
	apiError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.')

export const accountIdOf = (email: string) =>
	`118${BigInt(`0x${createHash('sha256').update(email).digest('hex').slice(0, 14)}`)
		.toString()
		.padStart(18, '0')
		.slice(0, 18)}`

/** Google's OAuth errors: 400 (401 for a bad client) with `{ error, error_description }`. */
const oauthError = (error: string, description: string, status = 400) =>
	json({ error, error_description: description }, status)

export function startGoogleEmulator(options: GoogleEmulatorOptions = {}) {
	const clientId = options.clientId ?? 'emulated-client.apps.googleusercontent.com'
	const clientSecret = options.clientSecret ?? 'emulated-secret'
	/** OAuth clients by id, each in its Cloud project (an organization's own application is another client). */
	const clients = new Map<string, Client>([
		[clientId, { secret: clientSecret, projectId: options.projectId ?? 'demo-project' }],
	])
	const email = options.email ?? 'ada@example.com'
	const lifetime = options.tokenLifetimeSeconds ?? 3599
	const codes = new Map<
		string,
		{
			account: string
			clientId: string
			redirectUri: string
			challenge: string | null
			method: string | null
			offline: boolean
			scope: string
		}
	>()
	const access = new Map<string, AccessGrant>()
	const refresh = new Map<string, RefreshGrant>()
	const routes: Route[] = []
	const log: string[] = []
	/**
	 * What the next consent does. `account`: who signs in (default `email`). `unticked`: scopes the user leaves
	 * unticked on Google's granular consent screen, which the token's `scope` then omits ("the application must check
	 * what scopes are granted by the users", https://developers.google.com/identity/protocols/oauth2/resources/granular-permissions).
	 */
	const consentState: { account: string; unticked: string[] } = { account: email, unticked: [] }

	function issue(refreshToken: string, scope: string, withRefresh: boolean) {
		const token = `ya29.${crypto.randomUUID().replaceAll('-', '')}`
		const grant = refresh.get(refreshToken)!
		access.set(token, {
			email: grant.email,
			clientId: grant.clientId,
			expiresAt: Date.now() + lifetime * 1000,
			refreshToken,
			revoked: false,
			scope,
		})
		return {
			access_token: token,
			expires_in: lifetime,
			token_type: 'Bearer',
			scope,
			...(withRefresh ? { refresh_token: refreshToken } : {}),
		}
	}

	/** The authenticated client's id, or null. */
	function clientOf(request: Request, form: URLSearchParams): string | null {
		const header = request.headers.get('authorization')
		const basic = header?.startsWith('Basic ')
			? Buffer.from(header.slice(6), 'base64').toString().split(':').map(decodeURIComponent)
			: null
		const id = basic ? basic[0] : form.get('client_id')
		const secret = basic ? basic[1] : form.get('client_secret')
		return id && clients.get(id)?.secret === secret ? id : null
	}

	async function token(request: Request): Promise<Response> {
		const form = new URLSearchParams(await request.text())
		const client = clientOf(request, form)
		if (!client) return oauthError('invalid_client', 'The OAuth client was not found.', 401)
		if (form.get('grant_type') === 'refresh_token') {
			const grant = refresh.get(form.get('refresh_token') ?? '')
			// A revoked grant (the fault layer's `revoke`) refuses its refresh token too.
			if (!grant || grant.revoked || grant.clientId !== client || faults.faults.revoke) {
				return oauthError('invalid_grant', 'Token has been expired or revoked.')
			}
			log.push('POST /token refresh')
			// Google does not rotate refresh tokens: the answer carries none.
			return json(issue(form.get('refresh_token')!, grant.scope, false))
		}
		if (form.get('grant_type') !== 'authorization_code')
			return oauthError('unsupported_grant_type', 'Invalid grant_type')
		const code = redeemCode(
			codes,
			form,
			{
				unknown: () => oauthError('invalid_grant', 'Malformed auth code.'),
				redirectUri: () => oauthError('redirect_uri_mismatch', 'Bad Request'),
				verifier: () => oauthError('invalid_grant', 'Invalid code verifier.'),
			},
			(issued) => issued.clientId === client,
		)
		if (code instanceof Response) return code
		log.push('POST /token code')
		const refreshToken = `1//${crypto.randomUUID().replaceAll('-', '')}`
		refresh.set(refreshToken, { revoked: false, scope: code.scope, email: code.account, clientId: client })
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

	/**
	 * Revoking any token of a grant ends the whole grant of that account to that OAuth client: every refresh token of
	 * the account and client and every access token issued from them ("Revokes all of the scopes that the user
	 * granted to the app", https://developers.google.com/identity/oauth2/web/reference/js-reference#google.accounts.oauth2.revoke).
	 * Grants of the same account to another client are untouched.
	 */
	function revokeGrant(refreshToken: string) {
		const revoked = refresh.get(refreshToken)
		if (revoked === undefined) return
		for (const [token, grant] of refresh) {
			if (grant.email !== revoked.email || grant.clientId !== revoked.clientId) continue
			grant.revoked = true
			for (const issued of access.values()) if (issued.refreshToken === token) issued.revoked = true
		}
	}

	function authorized(request: Request): AccessGrant | null {
		const bearer = (request.headers.get('authorization') ?? '').replace(/^Bearer\s+/i, '')
		const grant = access.get(bearer)
		if (!grant || grant.revoked || grant.expiresAt < Date.now()) return null
		return grant
	}

	function consent(url: URL): Response {
		const client = url.searchParams.get('client_id') ?? ''
		if (!clients.has(client)) return oauthError('invalid_client', 'The OAuth client was not found.', 401)
		const redirect = new URL(url.searchParams.get('redirect_uri') ?? '')
		const code = `4/${crypto.randomUUID()}`
		const asked = (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean)
		codes.set(code, {
			account: consentState.account,
			clientId: client,
			redirectUri: redirect.toString(),
			challenge: url.searchParams.get('code_challenge'),
			method: url.searchParams.get('code_challenge_method'),
			offline: url.searchParams.get('access_type') === 'offline',
			scope: asked.filter((scope) => !consentState.unticked.includes(scope)).join(' '),
		})
		log.push(`GET /o/oauth2/v2/auth prompt=${url.searchParams.get('prompt')}`)
		redirect.searchParams.set('code', code)
		redirect.searchParams.set('state', url.searchParams.get('state') ?? '')
		return new Response(null, { status: 302, headers: { location: redirect.toString() } })
	}

	const route = (method: string, pattern: RegExp, handler: RouteHandler, opts: RouteOptions = {}) => {
		routes.push({ method, pattern, handler, public: opts.public ?? false, scopes: opts.scopes ?? null })
	}
	route('GET', /^\/o\/oauth2\/v2\/auth$/, ({ url }) => consent(url), { public: true })
	route('POST', /^\/token$/, ({ request }) => token(request), { public: true })
	route('POST', /^\/revoke$/, ({ request, url }) => revoke(request, url), { public: true })
	// Google's account id (`id`, the `sub` of an ID token) is stable per account, unlike its email.
	route('GET', /^\/oauth2\/v2\/userinfo$/, ({ email }) =>
		json({ id: accountIdOf(email), email, verified_email: true, picture: 'https://example.com/ada.png' }),
	)

	const faults = faultLayer('google')
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(request) {
			const fault = await faults.before(request)
			if (fault) return fault
			const url = new URL(request.url)
			for (const candidate of routes) {
				if (candidate.method !== request.method) continue
				const match = candidate.pattern.exec(url.pathname)
				if (!match) continue
				let grantEmail = ''
				let projectId = ''
				if (!candidate.public) {
					const grant = authorized(request)
					if (!grant) return apiError(401, 'authError', 'Request had invalid authentication credentials.')
					grantEmail = grant.email
					projectId = clients.get(grant.clientId)?.projectId ?? ''
					log.push(`${request.method} ${url.pathname}${url.search}`)
					const held = grant.scope.split(' ')
					if (candidate.scopes && !candidate.scopes.some((scope) => held.includes(scope))) return insufficientScopes()
				}
				const params = match.slice(1).map((part) => decodeURIComponent(part ?? ''))
				return candidate.handler({ request, url, params, email: grantEmail, projectId })
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
		/** Who consents next and which scopes they untick (granular consent). */
		consent: consentState,
		/** Another OAuth client (an organization's own application), in its own Cloud project. */
		addClient(id: string, secret: string, projectId: string) {
			clients.set(id, { secret, projectId })
		},
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
		/** How many revocation calls Google received. */
		revocations: () => log.filter((line) => line === 'POST /revoke').length,
		liveRefreshTokens: () => [...refresh.values()].filter((grant) => !grant.revoked).length,
		stop: () => server.stop(true),
	}
}

export type GoogleEmulator = ReturnType<typeof startGoogleEmulator>
