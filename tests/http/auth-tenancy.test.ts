import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('authentication and tenancy', (driver) => {
	let t: TestService
	let otherKey: string
	let docId: string
	beforeAll(async () => {
		t = await startTestService(driver, { env: { MEMORY_KEY_CACHE_SECONDS: '0' } })
		otherKey = await t.createKey('other-org')
		const added = await t.json('POST', '/v3/documents', {
			content: 'The launch code is hidden under the blue ceramic owl.',
			containerTag: 'shared_tag',
			customId: 'secret-doc',
		})
		docId = added.body.id
		await t.waitForStatus(docId)
	}, 60_000)
	afterAll(() => t.stop())

	it('refuses requests without a key, with a malformed header or with an unknown key', async () => {
		for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer sm_not_a_real_key' }] as Record<
			string,
			string
		>[]) {
			const response = await t.request('POST', '/v3/search', { body: { q: 'owl' }, key: null, headers })
			expect(response.status).toBe(401)
			expect(response.headers.get('content-type')).toContain('application/json')
			expect(await response.json()).toMatchObject({ error: 'Unauthorized', details: expect.any(String) })
		}
	})

	it('serves the health check, the OpenAPI document and Swagger UI without a key', async () => {
		for (const path of ['/health', '/openapi.json', '/swagger']) {
			expect((await t.request('GET', path, { key: null })).status).toBe(200)
		}
	})

	it("keeps one organization out of another organization's data, even with its ids", async () => {
		const get = await t.json('GET', `/v3/documents/${docId}`, undefined, otherKey)
		expect(get.status).toBe(404)
		expect((await t.json('GET', '/v3/documents/secret-doc', undefined, otherKey)).status).toBe(404)
		expect((await t.json('GET', `/v3/documents/${docId}/chunks`, undefined, otherKey)).status).toBe(404)
		const patch = await t.json('PATCH', `/v3/documents/${docId}`, { content: 'hijacked' }, otherKey)
		expect(patch.status).toBe(404)
		const list = await t.json('POST', '/v3/documents/list', { containerTags: ['shared_tag'] }, otherKey)
		expect(list.body.memories).toEqual([])
		const search = await t.json(
			'POST',
			'/v3/search',
			{ q: 'launch code blue ceramic owl', containerTag: 'shared_tag' },
			otherKey,
		)
		expect(search.body.results).toEqual([])
		const searchAll = await t.json('POST', '/v3/search', { q: 'launch code blue ceramic owl' }, otherKey)
		expect(searchAll.body.results).toEqual([])
		expect((await t.request('DELETE', `/v3/documents/${docId}`, { key: otherKey })).status).toBe(404)
		const bulk = await t.json('DELETE', '/v3/documents/bulk', { ids: [docId] }, otherKey)
		expect(bulk.body.deletedCount).toBe(0)
		const bulkTag = await t.json('DELETE', '/v3/documents/bulk', { containerTags: ['shared_tag'] }, otherKey)
		expect(bulkTag.body.deletedCount).toBe(0)

		const owner = await t.json('GET', `/v3/documents/${docId}`)
		expect(owner.status).toBe(200)
		expect(owner.body.content).toBe('The launch code is hidden under the blue ceramic owl.')
		const ownerSearch = await t.json('POST', '/v3/search', { q: 'blue ceramic owl', containerTag: 'shared_tag' })
		expect(ownerSearch.body.results[0].documentId).toBe(docId)
	})

	it('stops accepting a revoked key', async () => {
		const key = await t.createKey('revoked-org')
		expect((await t.json('POST', '/v3/documents/list', {}, key)).status).toBe(200)
		const storage = t.service.plugins.storage
		const record = (await storage.keys.list()).find((k) => k.orgName === 'revoked-org')!
		expect(await storage.keys.revoke(record.id)).toBe(true)
		expect((await t.json('POST', '/v3/documents/list', {}, key)).status).toBe(401)
	})
})
