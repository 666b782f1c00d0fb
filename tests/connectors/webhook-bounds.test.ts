import { afterAll, beforeAll, expect, it } from 'bun:test'
import { onedrive } from '../../connectors/onedrive/index.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** A OneDrive notification naming `count` distinct subscriptions, none of them known. */
const notificationNaming = (count: number) =>
	JSON.stringify({
		value: Array.from({ length: count }, (_, i) => ({ subscriptionId: `s${i.toString(16)}`, clientState: 'x' })),
	})

/**
 * Sends `body` to the OneDrive webhook route while /health is asked again and again: the webhook's answer and time,
 * and the longest /health took meanwhile. A webhook that takes over 5 s fails the test instead of holding it.
 */
async function sendWhileProbingHealth(base: string, body: string) {
	let done = false
	let healthMax = 0
	const probes = (async () => {
		while (!done) {
			const started = performance.now()
			const health = await fetch(`${base}/health`)
			await health.arrayBuffer()
			healthMax = Math.max(healthMax, performance.now() - started)
			await Bun.sleep(5)
		}
	})()
	const started = performance.now()
	try {
		const response = await fetch(`${base}/v3/connections/webhooks/onedrive`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body,
			signal: AbortSignal.timeout(5_000),
		})
		const answer = {
			status: response.status,
			body: (await response.json()) as { details?: string },
			ms: performance.now() - started,
		}
		return { ...answer, healthMax }
	} finally {
		done = true
		await probes
	}
}

describeEachDriver('webhook routes under a flood of route keys', (driver) => {
	let t: TestService
	let base: string
	beforeAll(async () => {
		t = await startTestService(driver, {
			env: {
				MICROSOFT_CLIENT_ID: 'client',
				MICROSOFT_CLIENT_SECRET: 'secret',
				MEMORY_WEBHOOK_RATE_LIMIT_PER_MINUTE: '21',
			},
			plugins: [onedrive({ graphUrl: 'http://127.0.0.1:9', loginUrl: 'http://127.0.0.1:9' })],
			extractor: null,
		})
		const server = t.service.app!.listen({ port: 0, hostname: '127.0.0.1' })
		base = `http://127.0.0.1:${server.server!.port}`
		// A service just started loads its file parsers in the background: the times below are the route's own.
		await fetch(`${base}/v3/connections/webhooks/onedrive`, { method: 'POST', body: notificationNaming(2) })
		await Bun.sleep(2_000)
	}, 60_000)
	afterAll(async () => {
		await t.service.app!.stop(true)
		await t.stop()
	})

	it('refuses a notification naming 2,000 subscriptions before looking any up, /health unaffected', async () => {
		const body = notificationNaming(2_000)
		expect(body.length).toBeLessThan(256 * 1024)
		const answer = await sendWhileProbingHealth(base, body)
		expect(answer.status).toBe(400)
		expect(answer.body.details).toContain('names 2000 subscriptions; onedrive sends at most 100')
		expect(answer.ms).toBeLessThan(2_000)
		expect(answer.healthMax).toBeLessThan(1_000)
	})

	it('refuses a 0.85 MB notification naming 20,000 subscriptions unread, /health unaffected', async () => {
		const body = notificationNaming(20_000)
		expect(body.length).toBeGreaterThan(256 * 1024)
		const answer = await sendWhileProbingHealth(base, body)
		expect(answer.status).toBe(413)
		expect(answer.ms).toBeLessThan(2_000)
		expect(answer.healthMax).toBeLessThan(1_000)
	})

	it('refuses a 4 MB notification naming 100,000 subscriptions before parsing it, /health unaffected', async () => {
		const body = notificationNaming(100_000)
		const answer = await sendWhileProbingHealth(base, body)
		expect(answer.status).toBe(413)
		expect(answer.ms).toBeLessThan(2_000)
		expect(answer.healthMax).toBeLessThan(1_000)
	})

	it('still refuses the largest notification OneDrive may send when it names no known subscription', async () => {
		const answer = await sendWhileProbingHealth(base, notificationNaming(100))
		expect(answer.status).toBe(401)
	})

	it('limits webhook requests per source address, not /health', async () => {
		const statuses: number[] = []
		for (let i = 0; i < 25; i++) {
			const response = await fetch(`${base}/v3/connections/webhooks/onedrive`, { method: 'POST', body: '{}' })
			statuses.push(response.status)
			if (response.status === 429) {
				expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
				expect(((await response.json()) as { details: string }).details).toContain(
					'a source address on the webhook routes',
				)
			} else await response.arrayBuffer()
		}
		expect(statuses).toContain(429)
		expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(20)
		expect((await fetch(`${base}/health`)).status).toBe(200)
	})
})
