import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { github } from '../../connectors/github/index.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describe('GitHub webhooks routed by their headers', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: null, plugins: [github()] })
	})
	afterAll(() => t.stop())

	const deliver = (event: string, body: string) =>
		t.service.app!.handle(
			new Request('http://localhost/v3/connections/webhooks/github', {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-github-event': event,
					'x-github-hook-id': '424242',
					'x-github-delivery': crypto.randomUUID(),
					'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
				},
				body,
			}),
		)

	it('refuses a delivery for an unknown hook without reading its body', async () => {
		// Over GitHub's 25 MB payload cap: were the body read first, the answer would be a 413.
		const answer = await deliver('push', `{${'x'.repeat(26 * 1024 * 1024)}`)
		expect(answer.status).toBe(401)
		expect(((await answer.json()) as { details: string }).details).toBe('the notification names no known subscription')
	})

	it("answers GitHub's ping of a hook that is not stored yet", async () => {
		const answer = await deliver('ping', JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 424242 }))
		expect(answer.status).toBe(200)
	})
})
