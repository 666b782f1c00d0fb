import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('documents API', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver)
	}, 60_000)
	afterAll(() => t.stop())

	it('answers queued at once and walks the document through every stage to done', async () => {
		const added = await t.json('POST', '/v3/documents', {
			content: '# Gardening\n\nTomatoes need six hours of sun a day.',
			containerTag: 'user_1',
			metadata: { source: 'notes', year: 2024, pinned: true, tags: ['garden'] },
			dreaming: 'instant',
		})
		expect(added.status).toBe(200)
		expect(added.body).toEqual({ id: expect.any(String), status: 'queued' })
		expect(added.body.id).toHaveLength(22)
		const done = await t.waitForStatus(added.body.id)
		expect(done.status).toBe('done')
		expect(done.title).toBe('Gardening')
		expect(done.metadata).toEqual({ source: 'notes', year: 2024, pinned: true, tags: ['garden'] })
		expect(done.dreamingStatus).toBe('done')
		expect(done.stages.map((s: { stage: string }) => s.stage)).toEqual([
			'extracting',
			'chunking',
			'embedding',
			'indexing',
			'memories',
		])
		for (const stage of done.stages) {
			expect(stage.outcome).toBe('ok')
			expect(Date.parse(stage.endedAt)).toBeGreaterThanOrEqual(Date.parse(stage.startedAt))
		}
		const chunks = await t.json('GET', `/v3/documents/${added.body.id}/chunks`)
		expect(chunks.body.total).toBeGreaterThan(0)
		expect(chunks.body.chunks[0].position).toBe(0)
		expect(chunks.body.chunks.map((c: { content: string }) => c.content).join(' ')).toContain('six hours of sun')
	})

	it('reports its own time for a request in a Server-Timing header', async () => {
		const reply = await t.request('POST', '/v3/documents/list', { body: { limit: 1 } })
		expect(reply.status).toBe(200)
		expect(reply.headers.get('server-timing')).toMatch(/^app;dur=\d+\.\d$/)
	})

	it('upserts by customId: unchanged content is not reprocessed, changed content is', async () => {
		const first = await t.json('POST', '/v3/documents', {
			content: 'Alpha version',
			containerTag: 'user_up',
			customId: 'doc-1',
		})
		const done = await t.waitForStatus(first.body.id)
		const again = await t.json('POST', '/v3/documents', {
			content: 'Alpha version',
			containerTag: 'user_up',
			customId: 'doc-1',
			metadata: { edited: true },
		})
		expect(again.body.id).toBe(first.body.id)
		expect(again.body.status).toBe('done')
		const unchanged = await t.json('GET', `/v3/documents/${first.body.id}`)
		expect(unchanged.body.stages).toEqual(done.stages)
		expect(unchanged.body.metadata).toEqual({ edited: true })

		const changed = await t.json('POST', '/v3/documents', {
			content: 'Beta version',
			containerTag: 'user_up',
			customId: 'doc-1',
		})
		expect(changed.body).toEqual({ id: first.body.id, status: 'queued' })
		await t.waitForStatus(first.body.id)
		const chunks = await t.json('GET', '/v3/documents/doc-1/chunks')
		expect(chunks.body.chunks.map((c: { content: string }) => c.content)).toEqual(['Beta version'])

		const otherContainer = await t.json('POST', '/v3/documents', {
			content: 'Gamma',
			containerTag: 'user_other',
			customId: 'doc-1',
		})
		expect(otherContainer.body.id).not.toBe(first.body.id)
	})

	it('processes the newest content when a customId is re-sent while the old content is still in the pipeline', async () => {
		const large = Array.from({ length: 300 }, (_, i) => `Old paragraph ${i} about harbour cranes and tides.`).join(
			'\n\n',
		)
		const first = await t.json('POST', '/v3/documents', { content: large, containerTag: 'user_race', customId: 'race' })
		const second = await t.json('POST', '/v3/documents', {
			content: 'New content about mountain huts.',
			containerTag: 'user_race',
			customId: 'race',
		})
		expect(second.body.id).toBe(first.body.id)
		const done = await t.waitForStatus(first.body.id, ['done'])
		expect(done.content).toBe('New content about mountain huts.')
		const chunks = await t.json('GET', `/v3/documents/${first.body.id}/chunks`)
		expect(chunks.body.chunks.map((c: { content: string }) => c.content)).toEqual(['New content about mountain huts.'])
	})

	it('gets by id or customId, patches, and reprocesses patched content', async () => {
		const added = await t.json('POST', '/v3/documents', {
			content: 'Original text',
			containerTag: 'user_p',
			customId: 'patch-me',
		})
		await t.waitForStatus(added.body.id)
		const byCustomId = await t.json('GET', '/v3/documents/patch-me')
		expect(byCustomId.body.id).toBe(added.body.id)
		expect(byCustomId.body.customId).toBe('patch-me')

		const patched = await t.json('PATCH', `/v3/documents/${added.body.id}`, {
			content: 'Replaced text',
			metadata: { v: 2 },
		})
		expect(patched.status).toBe(200)
		expect(patched.body).toEqual({ id: added.body.id, status: 'queued' })
		const done = await t.waitForStatus(added.body.id)
		expect(done.content).toBe('Replaced text')
		expect(done.metadata).toEqual({ v: 2 })
		expect((await t.json('PATCH', '/v3/documents/nope', { content: 'x' })).status).toBe(404)
	})

	it('deletes a document with 204, and its chunks leave search', async () => {
		const added = await t.json('POST', '/v3/documents', {
			content: 'The zeppelin hangar is in Friedrichshafen.',
			containerTag: 'user_del',
		})
		await t.waitForStatus(added.body.id)
		const before = await t.json('POST', '/v3/search', { q: 'zeppelin hangar', containerTag: 'user_del' })
		expect(before.body.results.map((r: { documentId: string }) => r.documentId)).toContain(added.body.id)

		const deleted = await t.request('DELETE', `/v3/documents/${added.body.id}`)
		expect(deleted.status).toBe(204)
		expect((await t.json('GET', `/v3/documents/${added.body.id}`)).status).toBe(404)
		expect((await t.json('GET', `/v3/documents/${added.body.id}/chunks`)).status).toBe(404)
		const after = await t.json('POST', '/v3/search', { q: 'zeppelin hangar', containerTag: 'user_del' })
		expect(after.body.results).toEqual([])
		expect((await t.request('DELETE', `/v3/documents/${added.body.id}`)).status).toBe(404)
	})

	it('lists with pagination, sort, order, filters and both response shapes', async () => {
		const tag = 'user_list'
		for (let i = 0; i < 5; i++) {
			await t.json('POST', '/v3/documents', {
				content: `List document ${i}`,
				containerTag: tag,
				metadata: { rank: i, kind: i % 2 === 0 ? 'even' : 'odd' },
			})
			await Bun.sleep(5)
		}
		const page1 = await t.json('POST', '/v3/documents/list', { containerTags: [tag], limit: 2, page: 1, order: 'asc' })
		expect(page1.status).toBe(200)
		expect(page1.body.pagination).toEqual({ currentPage: 1, limit: 2, totalItems: 5, totalPages: 3 })
		expect(page1.body.totalCount).toBe(5)
		expect(page1.body.memories.map((d: { metadata: { rank: number } }) => d.metadata.rank)).toEqual([0, 1])
		expect(page1.body.results).toEqual(page1.body.memories)
		expect(page1.body.memories[0].content).toBeUndefined()

		const page3 = await t.json('POST', '/v3/documents/list', {
			containerTags: [tag],
			limit: '2',
			page: '3',
			order: 'asc',
		})
		expect(page3.body.memories.map((d: { metadata: { rank: number } }) => d.metadata.rank)).toEqual([4])

		const filtered = await t.json('POST', '/v3/documents/list', {
			containerTags: [tag],
			includeContent: true,
			filters: JSON.stringify({
				AND: [
					{ key: 'kind', value: 'even' },
					{ key: 'rank', value: '0', filterType: 'numeric', numericOperator: '>' },
				],
			}),
		})
		expect(filtered.body.memories.map((d: { content: string }) => d.content).sort()).toEqual([
			'List document 2',
			'List document 4',
		])
	})

	it('lists processing documents and bulk-deletes by ids, container tags and filepath', async () => {
		const a = await t.json('POST', '/v3/documents', { content: 'bulk a', containerTag: 'bulk_1', customId: 'bulk-a' })
		const b = await t.json('POST', '/v3/documents', { content: 'bulk b', containerTag: 'bulk_2' })
		const c = await t.json('POST', '/v3/documents', {
			content: 'bulk c',
			containerTag: 'bulk_3',
			filepath: '/notes/c.md',
		})
		const processing = await t.json('GET', '/v3/documents/processing')
		expect(processing.status).toBe(200)
		expect(processing.body.totalCount).toBe(processing.body.documents.length)
		for (const doc of [a, b, c]) await t.waitForStatus(doc.body.id)

		const byIds = await t.json('DELETE', '/v3/documents/bulk', { ids: ['bulk-a', 'missing-id'] })
		expect(byIds.body).toEqual({
			success: true,
			deletedCount: 1,
			errors: [{ id: 'missing-id', error: 'Document not found' }],
		})
		const byTags = await t.json('DELETE', '/v3/documents/bulk', { containerTags: ['bulk_2'] })
		expect(byTags.body).toMatchObject({ success: true, deletedCount: 1 })
		const byPath = await t.json('DELETE', '/v3/documents/bulk', { filepath: '/notes/' })
		expect(byPath.body).toMatchObject({ success: true, deletedCount: 1 })
		for (const doc of [a, b, c]) expect((await t.json('GET', `/v3/documents/${doc.body.id}`)).status).toBe(404)
		expect((await t.json('DELETE', '/v3/documents/bulk', {})).status).toBe(400)
	})
})
