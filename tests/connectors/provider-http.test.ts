import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
	ForbiddenError,
	InsufficientScopeError,
	ItemError,
	ProviderHttpError,
	providerFetch,
	RateLimitedError,
	requestedWaitMs,
	withProviderRetry,
} from '../../core/index.ts'

/** A provider whose next answers the test queues; it records what arrived and how many were in flight at once. */
function scriptedProvider() {
	const answers: (() => Response | Promise<Response>)[] = []
	const state = { requests: 0, inFlight: 0, maxInFlight: 0 }
	const server = Bun.serve({
		port: 0,
		async fetch() {
			state.requests++
			state.inFlight++
			state.maxInFlight = Math.max(state.maxInFlight, state.inFlight)
			try {
				const answer = answers.shift()
				return answer ? await answer() : new Response('ok')
			} finally {
				state.inFlight--
			}
		},
	})
	return { url: `http://127.0.0.1:${server.port}/x`, answers, state, stop: () => server.stop(true) }
}

const fast = { baseDelayMs: 5, maxWaitMs: 5_000 }

describe('providerFetch', () => {
	let p: ReturnType<typeof scriptedProvider>
	beforeAll(() => {
		p = scriptedProvider()
	})
	afterAll(() => p.stop())

	it('retries 429 and 5xx with backoff and answers the success', async () => {
		p.state.requests = 0
		p.answers.push(
			() => new Response('slow down', { status: 429 }),
			() => new Response('oops', { status: 502 }),
			() => new Response('fine'),
		)
		const res = await providerFetch(p.url, { policy: fast })
		expect(await res.text()).toBe('fine')
		expect(p.state.requests).toBe(3)
	})

	it("waits the provider's Retry-After before trying again", async () => {
		p.answers.push(() => new Response('', { status: 429, headers: { 'retry-after': '1' } }))
		const started = Date.now()
		const res = await providerFetch(p.url, { policy: fast })
		expect(res.status).toBe(200)
		expect(Date.now() - started).toBeGreaterThanOrEqual(950)
	})

	it('treats a 403 with x-ratelimit-remaining 0 as a rate limit (GitHub) and waits for x-ratelimit-reset', async () => {
		const reset = Math.ceil(Date.now() / 1000) + 1
		p.answers.push(
			() =>
				new Response('{"message":"API rate limit exceeded"}', {
					status: 403,
					headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
				}),
		)
		const res = await providerFetch(p.url, { policy: fast })
		expect(res.status).toBe(200)
		expect(Date.now()).toBeGreaterThanOrEqual(reset * 1000 - 50)
	})

	it('throws RateLimitedError with the reset time when the limit outlasts the wait cap, without waiting', async () => {
		p.state.requests = 0
		p.answers.push(() => new Response('', { status: 429, headers: { 'retry-after': '3600' } }))
		const started = Date.now()
		const error = await providerFetch(p.url, { policy: fast }).catch((caught) => caught)
		expect(error).toBeInstanceOf(RateLimitedError)
		expect((error as RateLimitedError).resetAt.getTime()).toBeGreaterThan(Date.now() + 3_500_000)
		expect(Date.now() - started).toBeLessThan(1_000)
		expect(p.state.requests).toBe(1)
	})

	it('classifies 403s with the policy: rate limit retried, missing scope and forbidden thrown', async () => {
		const policy = {
			...fast,
			classify: (_res: Response, body: string) =>
				body.includes('userRateLimitExceeded')
					? ('rate-limit' as const)
					: body.includes('insufficientPermissions')
						? ('insufficient-scope' as const)
						: ('forbidden' as const),
			missingScopes: () => ['drive.readonly'],
		}
		p.answers.push(() => new Response('{"reason":"userRateLimitExceeded"}', { status: 403 }))
		expect((await providerFetch(p.url, { policy })).status).toBe(200)
		p.answers.push(() => new Response('{"reason":"insufficientPermissions"}', { status: 403 }))
		const scope = await providerFetch(p.url, { policy }).catch((caught) => caught)
		expect(scope).toBeInstanceOf(InsufficientScopeError)
		expect((scope as InsufficientScopeError).missing).toEqual(['drive.readonly'])
		p.answers.push(() => new Response('{"reason":"cannotDownload"}', { status: 403 }))
		expect(await providerFetch(p.url, { policy }).catch((caught) => caught)).toBeInstanceOf(ForbiddenError)
	})

	it('throws a 401 as a ProviderHttpError with status 401, and answers other 4xx as they are', async () => {
		p.answers.push(() => new Response('bad token', { status: 401 }))
		const error = await providerFetch(p.url, { policy: fast }).catch((caught) => caught)
		expect(error).toBeInstanceOf(ProviderHttpError)
		expect((error as ProviderHttpError).status).toBe(401)
		p.answers.push(() => new Response('no such thing', { status: 404 }))
		expect((await providerFetch(p.url, { policy: fast })).status).toBe(404)
	})

	it('gives a hung request up after the timeout and tries again', async () => {
		p.state.requests = 0
		p.answers.push(() => new Promise((resolve) => setTimeout(() => resolve(new Response('late')), 2_000)))
		const res = await providerFetch(p.url, { policy: { ...fast, timeoutMs: 200 } })
		expect(await res.text()).toBe('ok')
		expect(p.state.requests).toBe(2)
	})

	it('answers the last 5xx after the last try', async () => {
		for (let i = 0; i < 3; i++) p.answers.push(() => new Response('down', { status: 503 }))
		expect((await providerFetch(p.url, { policy: { ...fast, maxTries: 3 } })).status).toBe(503)
	})

	it('holds at most `concurrency` requests of one connection in flight', async () => {
		const own = scriptedProvider()
		for (let i = 0; i < 8; i++) {
			own.answers.push(() => new Promise((resolve) => setTimeout(() => resolve(new Response('x')), 30)))
		}
		await Promise.all(
			Array.from({ length: 8 }, () =>
				providerFetch(own.url, { policy: { ...fast, limitKey: 'conn-a', concurrency: 2 } }),
			),
		)
		own.stop()
		expect(own.state.maxInFlight).toBe(2)
	})
})

describe('withProviderRetry', () => {
	const failing = (status: number, headers: Record<string, string> = {}) =>
		Object.assign(new Error(`status ${status}`), { status, response: { headers } })

	it("retries a client library's 5xx and 429 errors, Octokit's plain-object headers included", async () => {
		let calls = 0
		const result = await withProviderRetry(async () => {
			calls++
			if (calls === 1) throw failing(500)
			if (calls === 2) throw failing(429, { 'retry-after': '0' })
			return 'done'
		}, fast)
		expect(result).toBe('done')
		expect(calls).toBe(3)
	})

	it("reads Microsoft Graph's statusCode", async () => {
		let calls = 0
		await withProviderRetry(async () => {
			if (++calls === 1) throw Object.assign(new Error('throttled'), { statusCode: 429 })
		}, fast)
		expect(calls).toBe(2)
	})

	it('rethrows a 401, a plain 404 and an ItemError at once', async () => {
		for (const error of [failing(401), failing(404), new ItemError('bad item', { retry: 'permanent' })]) {
			let calls = 0
			const thrown = await withProviderRetry(async () => {
				calls++
				throw error
			}, fast).catch((caught) => caught)
			expect(thrown).toBe(error)
			expect(calls).toBe(1)
		}
	})

	it('turns a secondary rate limit longer than the cap into RateLimitedError', async () => {
		const thrown = await withProviderRetry(async () => {
			throw failing(403, { 'retry-after': '600' })
		}, fast).catch((caught) => caught)
		expect(thrown).toBeInstanceOf(RateLimitedError)
	})
})

describe('requestedWaitMs', () => {
	it('reads Retry-After as seconds or an HTTP date, and x-ratelimit-reset as epoch seconds when spent', () => {
		const now = Date.parse('2026-01-01T00:00:00Z')
		expect(requestedWaitMs(new Headers({ 'retry-after': '7' }), now)).toBe(7_000)
		expect(requestedWaitMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000)
		const reset = String(now / 1000 + 90)
		expect(requestedWaitMs({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, now)).toBe(90_000)
		expect(requestedWaitMs({ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': reset }, now)).toBeNull()
	})
})

describe('ItemError', () => {
	it('is transient unless said otherwise', () => {
		expect(new ItemError('x').retry).toBe('transient')
		expect(new ItemError('x', { retry: 'permanent' }).retry).toBe('permanent')
	})
})
