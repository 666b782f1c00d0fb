import pLimit, { type LimitFunction } from 'p-limit'
import {
	ForbiddenError,
	InsufficientScopeError,
	ItemError,
	ProviderHttpError,
	RateLimitedError,
	statusOf,
} from './errors.ts'

/** What a provider's answer means when its status alone does not say (a 403 is a rate limit at GitHub and Drive). */
export type ProviderAnswer = 'rate-limit' | 'insufficient-scope' | 'forbidden' | 'auth' | null

/** How one provider's requests are retried, timed and limited. Every field has a default. */
export interface ProviderPolicy {
	/** Classifies a refused answer (4xx); null: by status alone. */
	classify?(res: Response, bodyText: string): ProviderAnswer
	/** Classifies an error a provider's client library threw (withProviderRetry); null: by its status and headers. */
	classifyError?(error: unknown): ProviderAnswer
	/** The permissions an `insufficient-scope` answer lacks (for the connection's message). */
	missingScopes?(res: Response | null, bodyText: string): string[]
	/** Milliseconds before one request is given up (then retried); default 30,000. */
	timeoutMs?: number
	/** Tries per request, the first included; default 5. */
	maxTries?: number
	/** The most a request waits in total between its tries; a longer rate limit throws RateLimitedError. Default 60,000. */
	maxWaitMs?: number
	/** The first backoff step (doubled per try, full jitter); default 500. */
	baseDelayMs?: number
	/** Requests in flight per `limitKey` (a connection); default 4. */
	concurrency?: number
	/** Requests in flight per provider host, across connections; default 8. */
	hostConcurrency?: number
	/** The connection the request is for (its concurrency is limited); omit for no per-connection limit. */
	limitKey?: string
	/** Stops waiting and retrying (the run is ending). */
	signal?: AbortSignal
}

const DEFAULTS = {
	timeoutMs: 30_000,
	maxTries: 5,
	maxWaitMs: 60_000,
	baseDelayMs: 500,
	concurrency: 4,
	hostConcurrency: 8,
}

const connectionLimits = new Map<string, LimitFunction>()
const hostLimits = new Map<string, LimitFunction>()

function limiter(map: Map<string, LimitFunction>, key: string, concurrency: number): LimitFunction {
	let limit = map.get(key)
	if (!limit) {
		limit = pLimit(concurrency)
		map.set(key, limit)
	}
	return limit
}

/** Runs one request under the connection's and the host's concurrency limits. */
function limited<T>(policy: ProviderPolicy, host: string | null, call: () => Promise<T>): Promise<T> {
	const byHost = host ? limiter(hostLimits, host, policy.hostConcurrency ?? DEFAULTS.hostConcurrency) : null
	const inHost = byHost ? () => byHost(call) : call
	if (!policy.limitKey) return inHost()
	return limiter(connectionLimits, policy.limitKey, policy.concurrency ?? DEFAULTS.concurrency)(inHost)
}

type HeaderSource = Headers | Record<string, unknown> | undefined | null

function header(headers: HeaderSource, name: string): string | null {
	if (!headers) return null
	if (headers instanceof Headers) return headers.get(name)
	const value = headers[name] ?? headers[name.toLowerCase()]
	return value === undefined || value === null ? null : String(value)
}

/**
 * How long the provider asked to wait, in milliseconds: `Retry-After` (seconds or an HTTP date), else a reset time
 * (`x-ratelimit-reset`, epoch seconds or seconds from now) when the quota is spent; null when it did not say.
 */
export function requestedWaitMs(headers: HeaderSource, now = Date.now()): number | null {
	const retryAfter = header(headers, 'retry-after')
	if (retryAfter !== null) {
		const seconds = Number(retryAfter)
		if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
		const date = Date.parse(retryAfter)
		if (Number.isFinite(date)) return Math.max(0, date - now)
	}
	const reset = header(headers, 'x-ratelimit-reset')
	const remaining = header(headers, 'x-ratelimit-remaining')
	if (reset !== null && (remaining === null || Number(remaining) === 0)) {
		const value = Number(reset)
		if (Number.isFinite(value)) return Math.max(0, value > 1e9 ? value * 1000 - now : value * 1000)
	}
	return null
}

/** A 403 that is a rate limit by its headers alone (GitHub's primary and secondary limits). */
const limitedByHeaders = (headers: HeaderSource) =>
	header(headers, 'x-ratelimit-remaining') === '0' || header(headers, 'retry-after') !== null

/** The answer's meaning: retry after a wait, retry soon, or one of the refusals. */
type Verdict = 'rate-limit' | 'transient' | 'insufficient-scope' | 'forbidden' | 'auth' | 'final'

function verdictOf(status: number, headers: HeaderSource, classified: ProviderAnswer): Verdict {
	if (classified) return classified
	if (status === 429) return 'rate-limit'
	if (status === 401) return 'auth'
	if (status === 403 && limitedByHeaders(headers)) return 'rate-limit'
	if (status === 408 || status >= 500) return 'transient'
	return 'final'
}

const sleep = (ms: number, signal?: AbortSignal) =>
	new Promise<void>((resolve, reject) => {
		if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'))
		const timer = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort)
			resolve()
		}, ms)
		const onAbort = () => {
			clearTimeout(timer)
			reject(signal?.reason ?? new Error('aborted'))
		}
		signal?.addEventListener('abort', onAbort, { once: true })
	})

/** Tracks the waits of one request: exponential backoff with full jitter, the provider's own wait when it gave one. */
function waits(policy: ProviderPolicy) {
	const maxTries = policy.maxTries ?? DEFAULTS.maxTries
	const maxWaitMs = policy.maxWaitMs ?? DEFAULTS.maxWaitMs
	const base = policy.baseDelayMs ?? DEFAULTS.baseDelayMs
	let waited = 0
	return {
		/** The wait before try `tried + 1`, or null when the request must give up. */
		next(tried: number, requested: number | null): number | null {
			if (tried >= maxTries) return null
			const backoff = Math.random() * Math.min(maxWaitMs, base * 2 ** (tried - 1))
			const wait = requested !== null ? Math.max(requested, backoff) : backoff
			if (waited + wait > maxWaitMs) return null
			waited += wait
			return wait
		},
	}
}

function limitError(requested: number | null, message: string): RateLimitedError {
	return new RateLimitedError(new Date(Date.now() + (requested ?? 60_000)), message)
}

function refusal(verdict: Verdict, policy: ProviderPolicy, res: Response | null, status: number, body: string) {
	if (verdict === 'insufficient-scope') return new InsufficientScopeError(policy.missingScopes?.(res, body) ?? [])
	if (verdict === 'forbidden') return new ForbiddenError(`the provider forbids it (${status}): ${body.slice(0, 200)}`)
	return null
}

/**
 * `fetch` for a provider: a timeout per try; 429, 5xx, 408, network errors and rate-limit 403s retried with
 * exponential backoff and full jitter (the provider's `Retry-After` or reset time when it gave one); concurrency
 * limited per connection and per host. Answers the response for every other status, except: a 401 (or an answer
 * the policy calls `auth`) throws ProviderHttpError with status 401 (so `ctx.withToken` refreshes), `insufficient-scope`
 * throws InsufficientScopeError and `forbidden` ForbiddenError. A rate limit longer than `maxWaitMs` throws
 * RateLimitedError; a 5xx still there after the last try is answered as is.
 */
export async function providerFetch(
	input: string | URL,
	init: RequestInit & { policy?: ProviderPolicy } = {},
): Promise<Response> {
	const { policy = {}, ...request } = init
	const host = new URL(String(input)).host
	const timeoutMs = policy.timeoutMs ?? DEFAULTS.timeoutMs
	const schedule = waits(policy)
	for (let tried = 1; ; tried++) {
		const signals = [AbortSignal.timeout(timeoutMs), policy.signal, request.signal ?? undefined].filter(
			(signal): signal is AbortSignal => signal !== undefined,
		)
		let res: Response
		try {
			res = await limited(policy, host, () => fetch(input, { ...request, signal: AbortSignal.any(signals) }))
		} catch (error) {
			if (policy.signal?.aborted || request.signal?.aborted) throw error
			const wait = schedule.next(tried, null)
			if (wait === null) throw error
			await sleep(wait, policy.signal)
			continue
		}
		if (res.status < 400) return res
		const body = await res.clone().text()
		const classified = res.status < 500 ? (policy.classify?.(res, body) ?? null) : null
		const verdict = verdictOf(res.status, res.headers, classified)
		if (verdict === 'auth') throw new ProviderHttpError(401, res.headers, body)
		const refused = refusal(verdict, policy, res, res.status, body)
		if (refused) throw refused
		if (verdict === 'final') return res
		const requested = requestedWaitMs(res.headers)
		const wait = schedule.next(tried, requested)
		if (wait === null) {
			if (verdict === 'rate-limit')
				throw limitError(requested, `the provider's rate limit (${res.status}) outlasted the wait`)
			return res
		}
		await res.body?.cancel().catch(() => undefined)
		await sleep(wait, policy.signal)
	}
}

const headersOfError = (error: unknown): HeaderSource => {
	const { headers, response } = (error ?? {}) as { headers?: HeaderSource; response?: { headers?: HeaderSource } }
	return response?.headers ?? headers ?? null
}

/**
 * Runs a call of a provider's own client library with the same retry rules as `providerFetch`: errors are read by
 * their status (`status` or `statusCode`) and headers, or by `policy.classifyError`. A 401 is rethrown as it is (for
 * `ctx.withToken`), ItemError and the refusals as they are.
 */
export async function withProviderRetry<T>(call: () => Promise<T>, policy: ProviderPolicy = {}): Promise<T> {
	const schedule = waits(policy)
	for (let tried = 1; ; tried++) {
		try {
			return await limited(policy, null, call)
		} catch (error) {
			if (policy.signal?.aborted) throw error
			if (
				error instanceof ItemError ||
				error instanceof RateLimitedError ||
				error instanceof InsufficientScopeError ||
				error instanceof ForbiddenError
			) {
				throw error
			}
			const status = statusOf(error)
			const headers = headersOfError(error)
			const classified = policy.classifyError?.(error) ?? null
			// No status at all: a network error or a timeout, retried like a 5xx.
			const verdict = status === undefined && !classified ? 'transient' : verdictOf(status ?? 0, headers, classified)
			if (verdict === 'auth' || verdict === 'final') throw error
			const refused = refusal(verdict, policy, null, status ?? 0, String((error as Error)?.message ?? error))
			if (refused) throw refused
			const requested = requestedWaitMs(headers)
			const wait = schedule.next(tried, requested)
			if (wait === null) {
				if (verdict === 'rate-limit')
					throw limitError(requested, `the provider's rate limit (${status}) outlasted the wait`)
				throw error
			}
			await sleep(wait, policy.signal)
		}
	}
}
