/**
 * The fault layer every emulator shares: a test sets `faults` and the emulator calls `before(request)` at the top
 * of each request handler (`const fault = await faults.before(request); if (fault) return fault`). Faults are answered
 * in each provider's own form (status, headers, body), as its documentation describes:
 *
 * - GitHub, "Rate limits for the REST API" and "Troubleshooting the REST API": a primary limit is 403 or 429 with
 *   `x-ratelimit-remaining: 0` and `x-ratelimit-reset` in UTC epoch seconds; a secondary limit is 403 or 429 with a
 *   message saying so and possibly `retry-after`.
 * - Google (Drive and Gmail), "Usage limits" of the Drive API: "403: User rate limit exceeded" (reason
 *   `userRateLimitExceeded`); further backend checks answer 429 (`rateLimitExceeded`); use exponential backoff.
 * - Microsoft Graph, "Microsoft Graph throttling guidance": 429 Too Many Requests with a suggested wait in
 *   `Retry-After` (seconds), body `{ error: { code: 'TooManyRequests' } }`.
 * - Notion, "Request limits": 429 with code `rate_limited` and an integer `Retry-After` in seconds (the per-workspace
 *   limit's can exceed a minute); 529 `service_overload`.
 * - Granola, public API rate limits (per workspace: bursts of 25 requests per 5 s, 5 requests/s sustained): 429.
 * - A website (RFC 9110 sections 15.5.30 and 10.2.3): 429 or 503 with `Retry-After`.
 * - OpenAI, "Rate limits": 429 with `retry-after` and `x-ratelimit-reset-requests`.
 */

export type FaultProvider = 'github' | 'google' | 'graph' | 'notion' | 'granola' | 'website' | 'openai'

/** Which rate limit to answer: a provider's usual one, or its other documented form. */
export type RateLimitKind = 'primary' | 'secondary'

export interface Faults {
	/** Every Nth request (of those the faults apply to) is answered with the provider's rate limit; null: never. */
	rateLimitEvery: number | null
	/** The form of the rate limit answered. */
	rateLimitKind: RateLimitKind
	/** How long the rate limit lasts (its Retry-After or reset), in seconds. */
	rateLimitSeconds: number
	/** The provider's rate-limit answer of `kind`, lasting `seconds` (the default is each provider's own form). */
	rateLimitResponse(kind: RateLimitKind, seconds: number): Response
	/** Share (0 to 1) of requests answered with a transient 5xx. */
	failRate5xx: number
	/** The next N requests are answered with a 5xx (a burst), then the provider recovers. */
	burst5xx: number
	/** Requests whose path matches never answer in time (the connection hangs for `hangMs`, then 504). */
	timeoutOn: RegExp | null
	hangMs: number
	/** Listings answer short and say so in the provider's way (emulators that model it read this flag). */
	truncate: boolean
	/** Every token was revoked: API requests answer the provider's 401, and the emulator's token endpoint refuses refreshes. */
	revoke: boolean
	/** The next N authorized requests answer the provider's 401 (an access token the provider dropped early). */
	refuseTokens: number
	/** The scopes granted at consent (granular consent); null: all that were asked (emulators that model it). */
	grantedScopes: string[] | null
	/** How many times each webhook delivery is sent again (at-least-once delivery; emulators that push read it). */
	redeliver: number
	/** Only requests whose path matches get faults (default: every API request, never the OAuth endpoints). */
	only: RegExp | null
	/** Every request the faults apply to is answered this many milliseconds late (a slow provider). */
	delayMs: number
}

/** What the fault layer did, for a test or bench to report. */
export interface FaultCounts {
	requests: number
	rateLimited: number
	failed5xx: number
	timedOut: number
	revoked: number
}

const OAUTH_PATHS = /\/(login\/oauth|oauth2?\/|token$|authorize$|revoke$|v1\/oauth|o\/oauth2)|\/oauth2\/v2\.0\//

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
	Response.json(body, { status, headers })

/** Each provider's rate-limit answer, as its documentation gives it. */
export function providerRateLimit(provider: FaultProvider, kind: RateLimitKind, seconds: number): Response {
	const retryAfter = String(Math.max(1, Math.ceil(seconds)))
	switch (provider) {
		case 'github':
			return kind === 'primary'
				? json(
						403,
						{
							message: 'API rate limit exceeded for user ID 1.',
							documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
						},
						{
							'x-ratelimit-limit': '5000',
							'x-ratelimit-remaining': '0',
							'x-ratelimit-used': '5000',
							'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000 + seconds)),
							'x-ratelimit-resource': 'core',
						},
					)
				: json(
						403,
						{
							message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
							documentation_url:
								'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
						},
						{ 'retry-after': retryAfter },
					)
		case 'google': {
			const [status, reason, message] =
				kind === 'primary'
					? [403, 'userRateLimitExceeded', 'User Rate Limit Exceeded']
					: [429, 'rateLimitExceeded', 'Rate Limit Exceeded']
			return json(status, { error: { code: status, message, errors: [{ domain: 'usageLimits', reason, message }] } })
		}
		case 'graph':
			return json(
				429,
				{
					error: {
						code: kind === 'primary' ? 'TooManyRequests' : 'activityLimitReached',
						message: 'The request has been throttled',
					},
				},
				{ 'retry-after': retryAfter },
			)
		case 'notion':
			return json(
				429,
				{
					object: 'error',
					status: 429,
					code: 'rate_limited',
					message: 'You have been rate limited. Please try again in a few minutes.',
					additional_data: { rate_limit_reason: kind === 'primary' ? 'connection' : 'workspace' },
				},
				{ 'retry-after': retryAfter },
			)
		case 'granola':
			return json(429, { error: 'Too Many Requests', message: 'Rate limit exceeded' }, { 'retry-after': retryAfter })
		case 'website':
			return new Response('Too Many Requests', {
				status: kind === 'primary' ? 429 : 503,
				headers: { 'retry-after': retryAfter, 'content-type': 'text/plain' },
			})
		case 'openai':
			return json(
				429,
				{ error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } },
				{ 'retry-after': retryAfter, 'x-ratelimit-reset-requests': `${retryAfter}s` },
			)
	}
}

/** Each provider's transient server error. */
function serverError(provider: FaultProvider): Response {
	switch (provider) {
		case 'google':
			return json(503, {
				error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' },
			})
		case 'graph':
			return json(503, { error: { code: 'serviceNotAvailable', message: 'Service Unavailable' } })
		case 'notion':
			return json(503, { object: 'error', status: 503, code: 'service_unavailable', message: 'Notion is unavailable.' })
		case 'github':
			return json(502, { message: 'Server Error' })
		default:
			return new Response('Service Unavailable', { status: 503 })
	}
}

/** Each provider's answer to a revoked token. */
function revokedToken(provider: FaultProvider): Response {
	switch (provider) {
		case 'github':
			return json(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' })
		case 'google':
			return json(401, {
				error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
			})
		case 'graph':
			return json(401, { error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired.' } })
		case 'notion':
			return json(401, { object: 'error', status: 401, code: 'unauthorized', message: 'API token is invalid.' })
		case 'granola':
			return json(401, { error: 'Unauthorized', message: 'Invalid API key' })
		default:
			return new Response('Unauthorized', { status: 401 })
	}
}

export interface FaultLayer {
	faults: Faults
	counts: FaultCounts
	/** The draw behind `failRate5xx` (a seeded one makes a run reproducible). */
	random: () => number
	/** The fault to answer this request with, or null to serve it normally (both late with `delayMs`). */
	before(request: Request): Response | Promise<Response | null> | null
	/** Back to no faults (and zero counts). */
	reset(): void
}

/** A fault layer for one emulator; `random` makes the 5xx share reproducible. */
export function faultLayer(provider: FaultProvider, random: () => number = Math.random): FaultLayer {
	const defaults = (): Faults => ({
		rateLimitEvery: null,
		rateLimitKind: 'primary',
		rateLimitSeconds: 1,
		rateLimitResponse: (kind, seconds) => providerRateLimit(provider, kind, seconds),
		failRate5xx: 0,
		burst5xx: 0,
		timeoutOn: null,
		hangMs: 35_000,
		truncate: false,
		revoke: false,
		refuseTokens: 0,
		grantedScopes: null,
		redeliver: 0,
		only: null,
		delayMs: 0,
	})
	const zero = (): FaultCounts => ({ requests: 0, rateLimited: 0, failed5xx: 0, timedOut: 0, revoked: 0 })
	const layer: FaultLayer = {
		faults: defaults(),
		counts: zero(),
		random,
		reset() {
			layer.faults = defaults()
			layer.counts = zero()
		},
		before(request) {
			const { faults, counts } = layer
			const path = new URL(request.url).pathname
			if (faults.only ? !faults.only.test(path) : OAUTH_PATHS.test(path)) return null
			counts.requests++
			const answer = (): Response | Promise<Response> | null => {
				if ((faults.revoke || faults.refuseTokens > 0) && request.headers.has('authorization')) {
					if (faults.refuseTokens > 0) faults.refuseTokens--
					counts.revoked++
					return revokedToken(provider)
				}
				if (faults.timeoutOn?.test(path)) {
					counts.timedOut++
					return Bun.sleep(faults.hangMs).then(() => new Response('Gateway Timeout', { status: 504 }))
				}
				if (faults.rateLimitEvery !== null && counts.requests % faults.rateLimitEvery === 0) {
					counts.rateLimited++
					return faults.rateLimitResponse(faults.rateLimitKind, faults.rateLimitSeconds)
				}
				if (faults.burst5xx > 0 || (faults.failRate5xx > 0 && layer.random() < faults.failRate5xx)) {
					if (faults.burst5xx > 0) faults.burst5xx--
					counts.failed5xx++
					return serverError(provider)
				}
				return null
			}
			return faults.delayMs > 0 ? Bun.sleep(faults.delayMs).then(answer) : answer()
		},
	}
	return layer
}
