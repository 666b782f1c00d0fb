import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { upload } from '../../testkit/upload.ts'

/** A key restricted to container tag team_a, against content of team_b in the same organization. */
describeEachDriver('keys restricted to container tags', (driver) => {
	let t: TestService
	let restricted: string
	let ownDoc: string
	let otherDoc: string
	const forbidden = async (method: string, path: string, body?: unknown, key = restricted) => {
		const answer = await t.json(method, path, body, key)
		expect(`${method} ${path} ${answer.status}`).toBe(`${method} ${path} 403`)
		expect(answer.body).toMatchObject({ error: 'Forbidden', details: expect.any(String) })
	}
	const notFound = async (method: string, path: string, body?: unknown) => {
		const answer = await t.json(method, path, body, restricted)
		expect(`${method} ${path} ${answer.status}`).toBe(`${method} ${path} 404`)
	}

	beforeAll(async () => {
		t = await startTestService(driver, { env: { MEMORY_KEY_CACHE_SECONDS: '0' } })
		restricted = (await t.json('POST', '/v3/keys', { name: 'team a', containerTags: ['team_a'] })).body.key
		// Without a tag, a key restricted to one tag writes there.
		ownDoc = (
			await t.json('POST', '/v3/documents', { content: 'Alpha team ships the kayak paddles on Monday.' }, restricted)
		).body.id
		otherDoc = (
			await t.json('POST', '/v3/documents', {
				content: 'Bravo team keeps the kayak paddles in the red shed.',
				containerTag: 'team_b',
				customId: 'bravo-doc',
				dreaming: 'instant',
			})
		).body.id
		await t.waitForStatus(ownDoc)
		await t.waitForStatus(otherDoc)
	}, 240_000)
	afterAll(() => t.stop())

	describe('documents', () => {
		it('writes to its own tag and refuses another', async () => {
			expect((await t.json('GET', `/v3/documents/${ownDoc}`, undefined, restricted)).body.containerTag).toBe('team_a')
			await forbidden('POST', '/v3/documents', { content: 'x', containerTag: 'team_b' })
			await forbidden('POST', '/v3/documents', { content: 'x', containerTags: ['team_b'] })
			await forbidden('PATCH', `/v3/documents/${ownDoc}`, { containerTag: 'team_b' })
			const batch = await t.json(
				'POST',
				'/v3/documents/batch',
				{ documents: [{ content: 'mine' }, { content: 'theirs', containerTag: 'team_b' }] },
				restricted,
			)
			expect(batch.body.results[0].status).not.toBe('error')
			expect(batch.body.results[1]).toMatchObject({ status: 'error', error: 'Forbidden' })
			const file = { bytes: new TextEncoder().encode('hello'), name: 'a.txt' }
			expect((await upload(t, file, { containerTag: 'team_b' }, restricted)).status).toBe(403)
			expect((await upload(t, file, {}, restricted)).status).toBe(200)
			await forbidden('POST', '/v4/conversations', {
				conversationId: 'c1',
				containerTags: ['team_b'],
				messages: [{ role: 'user', content: 'hi' }],
			})
		})

		it("reads only its own tag: another tag's documents are not found", async () => {
			const list = await t.json('POST', '/v3/documents/list', { limit: 100 }, restricted)
			expect(list.body.memories.length).toBeGreaterThan(0)
			expect(list.body.memories.every((d: any) => d.containerTags[0] === 'team_a')).toBe(true)
			await forbidden('POST', '/v3/documents/list', { containerTags: ['team_b'] })
			await notFound('GET', `/v3/documents/${otherDoc}`)
			await notFound('GET', '/v3/documents/bravo-doc')
			await notFound('GET', `/v3/documents/${otherDoc}/chunks`)
			await notFound('GET', `/v3/documents/${otherDoc}/file-url`)
			await notFound('PATCH', `/v3/documents/${otherDoc}`, { content: 'hijacked' })
			await notFound('DELETE', `/v3/documents/${otherDoc}`)
			const processing = await t.json('GET', '/v3/documents/processing', undefined, restricted)
			expect(processing.body.documents.every((d: any) => d.containerTags[0] === 'team_a')).toBe(true)
			const bulk = await t.json('DELETE', '/v3/documents/bulk', { ids: [otherDoc] }, restricted)
			expect(bulk.body.deletedCount).toBe(0)
			await forbidden('DELETE', '/v3/documents/bulk', { containerTags: ['team_b'] })
			await forbidden('DELETE', '/v3/documents/bulk', { filepath: '/' })
			expect((await t.json('GET', `/v3/documents/${otherDoc}`)).body.content).toContain('red shed')
		})
	})

	describe('search and profile', () => {
		it('searches only its own tag and refuses another', async () => {
			const v3 = await t.json('POST', '/v3/search', { q: 'kayak paddles shed' }, restricted)
			expect(v3.status).toBe(200)
			expect(v3.body.results.map((r: any) => r.documentId)).not.toContain(otherDoc)
			expect(v3.body.results.map((r: any) => r.documentId)).toContain(ownDoc)
			const admin = await t.json('POST', '/v3/search', { q: 'kayak paddles shed' })
			expect(admin.body.results.map((r: any) => r.documentId)).toContain(otherDoc)
			await forbidden('POST', '/v3/search', { q: 'kayak', containerTag: 'team_b' })
			const v4 = await t.json('POST', '/v4/search', { q: 'red shed', searchMode: 'hybrid', threshold: 0 }, restricted)
			expect(v4.status).toBe(200)
			expect(JSON.stringify(v4.body)).not.toContain('red shed')
			await forbidden('POST', '/v4/search', { q: 'kayak', containerTags: ['team_b'] })
			await forbidden('POST', '/v4/profile', { containerTag: 'team_b' })
			await forbidden('POST', '/v4/profile/buckets', { containerTag: 'team_b' })
			expect((await t.json('POST', '/v4/profile', { containerTag: 'team_a' }, restricted)).status).toBe(200)
		})
	})

	describe('memories', () => {
		it("neither writes, lists nor forgets another tag's memories", async () => {
			await forbidden('POST', '/v4/memories', { containerTag: 'team_b', memories: [{ content: 'x' }] })
			await forbidden('POST', '/v4/memories/list', { containerTags: ['team_b'] })
			await forbidden('PATCH', '/v4/memories', { containerTag: 'team_b', content: 'x', newContent: 'y' })
			await forbidden('DELETE', '/v4/memories', { containerTag: 'team_b', content: 'x' })
			await forbidden('POST', '/v4/memories/forget-matching', { containerTag: 'team_b', query: 'shed' })
			const own = await t.json(
				'POST',
				'/v4/memories',
				{ containerTag: 'team_a', memories: [{ content: 'Alpha likes tea.' }] },
				restricted,
			)
			expect(own.status).toBe(201)
			const listed = await t.json('POST', '/v4/memories/list', { containerTags: ['team_a'] }, restricted)
			expect(listed.status).toBe(200)
		})
	})

	describe('container tags', () => {
		it('lists and manages only its own tags', async () => {
			const list = await t.json('GET', '/v3/container-tags/list', undefined, restricted)
			expect(list.body.map((tag: any) => tag.containerTag)).toEqual(['team_a'])
			const all = await t.json('GET', '/v3/container-tags/list')
			expect(all.body.map((tag: any) => tag.containerTag)).toContain('team_b')
			await forbidden('GET', '/v3/container-tags/team_b')
			await forbidden('PATCH', '/v3/container-tags/team_b', { entityContext: 'x' })
			await forbidden('DELETE', '/v3/container-tags/team_b')
			await forbidden('POST', '/v3/container-tags/merge', { containerTags: ['team_b'], targetContainerTag: 'team_a' })
			expect((await t.json('GET', '/v3/container-tags/team_a', undefined, restricted)).status).toBe(200)
		})
	})

	describe('organization management', () => {
		it('cannot manage keys or settings, nor read the organization usage', async () => {
			await forbidden('GET', '/v3/keys')
			await forbidden('POST', '/v3/keys', { name: 'escalate' })
			await forbidden('DELETE', '/v3/keys/anything')
			await forbidden('GET', '/v3/settings')
			await forbidden('PATCH', '/v3/settings', { shouldLLMFilter: false })
			await forbidden('POST', '/v3/settings/reset', { confirmation: 'default' })
			await forbidden('GET', '/v3/usage')
			await forbidden('GET', '/v3/feedback')
			await forbidden('POST', '/v3/connections/list', {})
			await forbidden('POST', '/v3/connections/web-crawler', {
				containerTags: ['team_b'],
				metadata: { startUrl: 'https://example.com/' },
			})
			const current = await t.json('GET', '/v3/keys/current', undefined, restricted)
			expect(current.body.containerTags).toEqual(['team_a'])
		})

		it('needs a tag to write when restricted to several', async () => {
			const two = (await t.json('POST', '/v3/keys', { name: 'two', containerTags: ['team_a', 'team_c'] })).body.key
			const answer = await t.json('POST', '/v3/documents', { content: 'which tag?' }, two)
			expect(answer.status).toBe(400)
			expect(answer.body.details).toContain('containerTag is required')
			expect((await t.json('POST', '/v3/documents', { content: 'c', containerTag: 'team_c' }, two)).status).toBe(200)
		})
	})

	describe('tenant isolation', () => {
		it("a key of another organization restricted to the same tag name sees none of this organization's content", async () => {
			const otherAdmin = await t.createKey('restriction-other-org')
			const other = (await t.json('POST', '/v3/keys', { name: 'x', containerTags: ['team_a'] }, otherAdmin)).body.key
			const list = await t.json('POST', '/v3/documents/list', {}, other)
			expect(list.body.memories).toEqual([])
			expect((await t.json('GET', `/v3/documents/${ownDoc}`, undefined, other)).status).toBe(404)
			const search = await t.json('POST', '/v3/search', { q: 'kayak paddles' }, other)
			expect(search.body.results).toEqual([])
			expect((await t.json('GET', '/v3/container-tags/list', undefined, other)).body).toEqual([])
		})
	})
})
