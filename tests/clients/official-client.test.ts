import { afterAll, beforeAll, expect, it } from 'bun:test'
import Supermemory from 'supermemory'
import { type ClientHarness, failure, startClientHarness } from '../../testkit/client.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'

describeEachDriver('official supermemory client (v4) against the real server', (driver) => {
	let harness: ClientHarness
	let client: Supermemory
	beforeAll(async () => {
		harness = await startClientHarness(driver)
		client = harness.client
	}, 60_000)
	afterAll(() => harness.stop())
	const waitDone = (id: string) => harness.waitDone(id)

	it('adds, gets, updates, lists, searches and deletes documents', async () => {
		const added = await client.add({
			content: 'Marie prefers oat milk in her cappuccino and hates cinnamon.',
			containerTag: 'client_user',
			customId: 'prefs-1',
			metadata: { source: 'chat', score: 3 },
		})
		expect(added.status).toBe('queued')
		const done = await waitDone(added.id)
		expect(done.status).toBe('done')
		expect(done.content).toBe('Marie prefers oat milk in her cappuccino and hates cinnamon.')
		expect(done.metadata).toEqual({ source: 'chat', score: 3 })
		expect(done.customId).toBe('prefs-1')

		const viaDocuments = await client.documents.add({
			content: 'The office wifi password rotates every Monday.',
			containerTag: 'client_user',
		})
		await waitDone(viaDocuments.id)

		const updated = await client.documents.update(added.id, {
			content: 'Marie now prefers almond milk in her cappuccino.',
		})
		expect(updated.id).toBe(added.id)
		expect((await waitDone(added.id)).content).toBe('Marie now prefers almond milk in her cappuccino.')

		const list = await client.documents.list({ containerTags: ['client_user'], limit: 10 })
		expect(list.memories.map((d) => d.id).sort()).toEqual([added.id, viaDocuments.id].sort())
		expect(list.pagination.totalItems).toBe(2)

		const search = await client.search.documents({ q: 'what milk does Marie like', containerTags: ['client_user'] })
		expect(search.results[0]!.documentId).toBe(added.id)
		expect(search.results[0]!.chunks[0]!.content).toContain('almond milk')
		const execute = await client.search.execute({ q: 'wifi password', containerTags: ['client_user'] })
		expect(execute.results[0]!.documentId).toBe(viaDocuments.id)

		await client.documents.delete(added.id)
		expect(await failure(client.documents.get(added.id))).toBeInstanceOf(Supermemory.NotFoundError)

		const bulk = await client.documents.deleteBulk({ ids: [viaDocuments.id] })
		expect(bulk).toMatchObject({ success: true, deletedCount: 1 })
		expect((await client.documents.list({ containerTags: ['client_user'] })).memories).toEqual([])
	})

	it("lists processing documents and surfaces auth errors as the client's error classes", async () => {
		const processing = await client.documents.listProcessing()
		expect(Array.isArray(processing.documents)).toBe(true)
		const anonymous = new Supermemory({ baseURL: client.baseURL, apiKey: 'sm_wrong', maxRetries: 0 })
		expect(await failure(anonymous.documents.list({}))).toBeInstanceOf(Supermemory.AuthenticationError)
	})
})
