import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { defineConnector, PLUGIN_API_VERSION } from '../core/index.ts'
import { startTestService, type TestService } from './helpers/service.ts'

/** A credentials connector whose resources page carries the contract's camelCase `totalCount`. */
const counted = defineConnector<Record<string, never>, Record<string, unknown>>({
	apiVersion: PLUGIN_API_VERSION,
	kind: 'connector',
	name: 'counted',
	provider: 'counted',
	displayName: 'Counted',
	auth: { type: 'credentials', fields: [{ key: 'apiKey', label: 'API key', secret: true }] },
	schedule: { everyHours: null },
	resources: {
		list: async (_ctx, query) => ({ resources: [{ id: `page-${query.page}` }], totalCount: 42 }),
		configure: async (_ctx, resources) => ({ chosen: resources.length }),
	},
	async *sync() {},
})

describe('connector runtime (in-process connectors)', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { plugins: [counted], extractor: null })
	}, 120_000)
	afterAll(async () => {
		await t?.stop()
	}, 60_000)

	it("answers a resources page's totalCount as the API's total_count", async () => {
		const created = await t.json('POST', '/v3/connections/counted', {
			containerTag: 'counted',
			metadata: { apiKey: 'k' },
		})
		expect(created.status).toBe(200)
		const listed = await t.json('GET', `/v3/connections/${created.body.id}/resources?page=2`)
		expect(listed).toEqual({ status: 200, body: { resources: [{ id: 'page-2' }], total_count: 42 } })
	}, 60_000)
})
