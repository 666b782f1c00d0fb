import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { testExtractor } from '../../testkit/test-extractor.ts'

describeEachDriver('cascades: what depends on a deleted document or a forgotten memory', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver, { extractor: testExtractor() })
	}, 60_000)
	afterAll(() => t.stop())

	async function ingest(content: string, containerTag: string) {
		const added = await t.json('POST', '/v3/documents', { content, containerTag, dreaming: 'instant' })
		return (await t.waitForStatus(added.body.id)).id as string
	}
	const entries = async (containerTag: string) =>
		(await t.json('POST', '/v4/memories/list', { containerTags: [containerTag], limit: 100 })).body.memoryEntries
	/** Every id any v4 search mode returns for the query, with or without forgotten memories. */
	async function everything(q: string, containerTag: string, forgottenMemories: boolean): Promise<string[]> {
		const ids: string[] = []
		for (const searchMode of ['memories', 'hybrid', 'documents']) {
			const response = await t.json('POST', '/v4/search', {
				q,
				containerTag,
				threshold: 0,
				limit: 100,
				searchMode,
				include: { forgottenMemories, relatedMemories: true },
			})
			for (const result of response.body.results) ids.push(result.id)
		}
		return ids
	}

	it('deletes the memories only a deleted document supported and keeps shared ones', async () => {
		const first = await ingest('Alex lives in Boston. Alex likes tea.', 'cascade_1')
		const second = await ingest('Alex likes tea. Alex plays chess.', 'cascade_1')
		const before = await entries('cascade_1')
		const tea = before.find((e: { memory: string }) => e.memory === 'Alex likes tea.')
		expect(tea.sourceCount).toBe(2)

		expect((await t.request('DELETE', `/v3/documents/${first}`)).status).toBe(204)
		const after = await entries('cascade_1')
		expect(after.map((e: { memory: string }) => e.memory).sort()).toEqual(['Alex likes tea.', 'Alex plays chess.'])
		expect(after.find((e: { id: string }) => e.id === tea.id)).toMatchObject({ sourceCount: 1, documentIds: [second] })
		const boston = before.find((e: { memory: string }) => e.memory === 'Alex lives in Boston.')
		const search = await everything('where does Alex live Boston', 'cascade_1', true)
		expect(search).not.toContain(boston.id)
		const chunks = await t.json('POST', '/v3/search', { q: 'Alex lives in Boston', containerTag: 'cascade_1' })
		expect(chunks.body.results.map((r: { documentId: string }) => r.documentId)).not.toContain(first)
	})

	it('makes the previous version latest again when the document of the latest one goes', async () => {
		await ingest('Alex lives in Boston.', 'cascade_2')
		const moved = await ingest('Alex moved to Seattle.', 'cascade_2')
		expect((await entries('cascade_2'))[0]).toMatchObject({ memory: 'Alex moved to Seattle.', version: 2 })
		await t.request('DELETE', `/v3/documents/${moved}`)
		const [entry] = await entries('cascade_2')
		expect(entry).toMatchObject({ memory: 'Alex lives in Boston.', version: 1, isLatest: true, history: [] })
		const found = await t.json('POST', '/v4/search', { q: 'where does Alex live', containerTag: 'cascade_2' })
		expect(found.body.results[0].memory).toBe('Alex lives in Boston.')
	})

	it('removes directly written memories with their source document, and memories of bulk-deleted containers', async () => {
		const written = await t.json('POST', '/v4/memories', {
			containerTag: 'cascade_3',
			memories: [{ content: 'Zoe owns a kayak' }],
		})
		await ingest('Zoe lives in Bergen.', 'cascade_3')
		await t.request('DELETE', `/v3/documents/${written.body.documentId}`)
		expect((await entries('cascade_3')).map((e: { memory: string }) => e.memory)).toEqual(['Zoe lives in Bergen.'])
		const bulk = await t.json('DELETE', '/v3/documents/bulk', { containerTags: ['cascade_3'] })
		expect(bulk.body.deletedCount).toBe(1)
		expect(await entries('cascade_3')).toEqual([])
		expect(await everything('Zoe kayak Bergen', 'cascade_3', true)).toEqual([])
	})

	it('never returns a deleted or forgotten item from search, unless forgottenMemories asks for forgotten ones', async () => {
		const kept = await ingest('Ivy writes poetry. Ivy grows tomatoes.', 'cascade_4')
		const deleted = await ingest('Ivy collects stamps.', 'cascade_4')
		const memories = await entries('cascade_4')
		const byText = (text: string) => memories.find((e: { memory: string }) => e.memory === text).id
		const poetry = byText('Ivy writes poetry.')
		const stamps = byText('Ivy collects stamps.')
		const written = await t.json('POST', '/v4/memories', {
			containerTag: 'cascade_4',
			memories: [{ content: 'Ivy visits Kyoto soon', forgetAfter: new Date(Date.now() + 1500).toISOString() }],
		})
		const expiring = written.body.memories[0].id
		await t.json('DELETE', '/v4/memories', { containerTag: 'cascade_4', id: poetry })
		await t.request('DELETE', `/v3/documents/${deleted}`)
		await Bun.sleep(1600)

		const query = 'Ivy poetry tomatoes stamps Kyoto'
		const visible = await everything(query, 'cascade_4', false)
		const withForgotten = await everything(query, 'cascade_4', true)
		expect(visible).toContain(byText('Ivy grows tomatoes.'))
		for (const hidden of [poetry, expiring, stamps]) expect(visible).not.toContain(hidden)
		expect(withForgotten).toContain(poetry)
		expect(withForgotten).toContain(expiring)
		expect(withForgotten).not.toContain(stamps)
		const chunkIds = (await t.json('GET', `/v3/documents/${kept}/chunks`)).body.chunks.map((c: { id: string }) => c.id)
		expect(chunkIds.some((id: string) => visible.includes(id))).toBe(true)
		// Related-memory context never shows a deleted memory either.
		const context = await t.json('POST', '/v4/search', {
			q: query,
			containerTag: 'cascade_4',
			threshold: 0,
			include: { relatedMemories: true, forgottenMemories: true },
		})
		expect(JSON.stringify(context.body)).not.toContain('Ivy collects stamps')
	})
})
