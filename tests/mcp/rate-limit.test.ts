import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestService, type TestService } from '../../testkit/service.ts'

const call = (id: number) => ({
	jsonrpc: '2.0',
	id,
	method: 'tools/call',
	params: { name: 'whoAmI', arguments: {} },
})

describe('MCP and the per-key rate limit', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: null, env: { MEMORY_RATE_LIMIT_PER_MINUTE: '3' } })
	})
	afterAll(() => t.stop())

	const post = (body: unknown) =>
		t.request('POST', '/mcp', {
			body,
			headers: { accept: 'application/json, text/event-stream', host: 'localhost' },
		})

	it('counts every message of a JSON-RPC batch against the limit, not the one HTTP request', async () => {
		const batch = await post([1, 2, 3, 4, 5, 6, 7, 8].map(call))
		expect(batch.status).toBe(429)
		expect(batch.headers.get('retry-after')).not.toBeNull()
	})
})
