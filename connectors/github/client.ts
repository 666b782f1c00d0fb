import type { Octokit } from '@octokit/rest'
import { RateLimitedError, type SyncContext } from '../../core/index.ts'

/** Tries with a token GitHub refused before giving up: processes rotating in turn can each revoke the last one. */
const MAX_TOKEN_ATTEMPTS = 3

export interface ClientOptions {
	/** Groups the throttling of one connection's requests (the connection id). */
	id?: string
	/** Longest a single request may take. */
	timeoutMs?: number
	/** Longest rate-limit wait sat out inside a sync; a longer one ends the sync as rate limited. */
	maxRateLimitWaitSeconds?: number
	/** Base of the back-off between tries of a failed request (5xx, network): 1 s, 4 s, 9 s at 1000. */
	retryBaseMs?: number
	signal?: AbortSignal
}

/**
 * Octokit with GitHub's recommended throttling (@octokit/plugin-throttling: primary limits waited out until
 * `x-ratelimit-reset`, secondary ones for `retry-after` or a minute) and retries of 5xx and network failures
 * (@octokit/plugin-retry), each request bounded by a timeout. Loaded on first use, so a service that never syncs
 * GitHub never loads it. Each request asks the connection for its token (core refreshes one about to expire); a token
 * GitHub refuses (401) is refreshed once and the request retried: another process sharing the connection may have
 * rotated it meanwhile, which revokes the one this process holds.
 */
export async function octokitFor(
	apiUrl: string,
	tokens: Pick<SyncContext, 'accessToken' | 'refreshAccessToken'>,
	options: ClientOptions = {},
): Promise<Octokit> {
	const [{ Octokit }, { throttling }, { retry }] = await Promise.all([
		import('@octokit/rest'),
		import('@octokit/plugin-throttling'),
		import('@octokit/plugin-retry'),
	])
	const maxWait = options.maxRateLimitWaitSeconds ?? 60
	const baseMs = options.retryBaseMs ?? 1000
	const timeoutMs = options.timeoutMs ?? 30_000
	const waitOrGiveUp = (retryAfter: number, retryCount: number) => retryAfter <= maxWait && retryCount < 3
	const Client = Octokit.plugin(throttling, retry)
	const octokit = new Client({
		baseUrl: apiUrl,
		userAgent: 'memory-service',
		request: {
			fetch: (url: string, init: RequestInit) => {
				const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]
				if (init.signal) signals.push(init.signal)
				return fetch(url, { ...init, signal: AbortSignal.any(signals) })
			},
		},
		throttle: {
			id: options.id ?? 'memory-service',
			onRateLimit: (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) =>
				waitOrGiveUp(retryAfter, retryCount),
			onSecondaryRateLimit: (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) =>
				waitOrGiveUp(retryAfter, retryCount),
		},
		// 403 and 429 are the throttling plugin's; the others will not change on a retry.
		retry: { retryAfterBaseValue: baseMs, doNotRetry: [400, 401, 403, 404, 406, 409, 410, 422, 429, 451] },
	})
	octokit.hook.wrap('request', async (request, requestOptions) => {
		let token = await tokens.accessToken()
		for (let attempt = 1; ; attempt++) {
			requestOptions.headers.authorization = `token ${token}`
			try {
				return await request(requestOptions)
			} catch (error) {
				const limitedUntil = rateLimitResetOf(error)
				if (limitedUntil) {
					throw new RateLimitedError(limitedUntil, `GitHub's rate limit lasts until ${limitedUntil.toISOString()}`)
				}
				if (statusOf(error) !== 401 || !tokens.refreshAccessToken || attempt === MAX_TOKEN_ATTEMPTS) throw error
				const renewed = await tokens.refreshAccessToken(token)
				if (renewed === token) throw error
				token = renewed
			}
		}
	})
	return octokit as unknown as Octokit
}

export const splitName = (fullName: string) => {
	const [owner, repo] = fullName.split('/') as [string, string]
	return { owner, repo }
}

/** Octokit's errors carry the HTTP status. */
export const statusOf = (error: unknown): number | undefined => (error as { status?: number } | null)?.status

/** GitHub's own message of a refused request (`Resource protected by organization SAML enforcement...`). */
export function messageOf(error: unknown): string {
	const data = (error as { response?: { data?: { message?: unknown } } } | null)?.response?.data
	return typeof data?.message === 'string' ? data.message : (error as Error).message
}

/**
 * When a refused request is a rate limit the throttling plugin gave up waiting for, the time to try again: a 403 or
 * 429 with `x-ratelimit-remaining: 0` (primary: until `x-ratelimit-reset`) or naming the secondary rate limit (for
 * `retry-after`, else a minute). Null for any other answer: a 403 can also be SAML enforcement or an IP allow list.
 */
export function rateLimitResetOf(error: unknown): Date | null {
	const status = statusOf(error)
	if (status !== 403 && status !== 429) return null
	const headers = (error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {}
	if (headers['x-ratelimit-remaining'] === '0') {
		const reset = Number(headers['x-ratelimit-reset'])
		return new Date(Number.isFinite(reset) && reset > 0 ? reset * 1000 : Date.now() + 60_000)
	}
	if (/\bsecondary rate\b/i.test(messageOf(error)) || status === 429) {
		const seconds = Number(headers['retry-after'])
		return new Date(Date.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000)
	}
	return null
}
