import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { testExtractor } from '../../testkit/test-extractor.ts'

const CREATED_KEYS = ['createdAt', 'forgetAfter', 'forgetReason', 'id', 'isStatic', 'memory', 'metadata']
const UPDATED_KEYS = [
	'createdAt',
	'forgetAfter',
	'forgetReason',
	'id',
	'memory',
	'metadata',
	'parentMemoryId',
	'rootMemoryId',
	'version',
]
const ENTRY_KEYS = [
	'containerTag',
	'createdAt',
	'documentIds',
	'forgetAfter',
	'forgetReason',
	'history',
	'id',
	'isForgotten',
	'isInference',
	'isLatest',
	'isStatic',
	'memory',
	'memoryRelations',
	'metadata',
	'orgId',
	'parentMemoryId',
	'rootMemoryId',
	'sourceCount',
	'spaceId',
	'temporalContext',
	'updatedAt',
	'version',
]

describeEachDriver('memories API (v4)', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver, { extractor: testExtractor() })
	}, 60_000)
	afterAll(() => t.stop())

	const create = (containerTag: string, memories: unknown[]) =>
		t.json('POST', '/v4/memories', { containerTag, memories })
	const list = async (containerTag: string, extra: Record<string, unknown> = {}) =>
		(await t.json('POST', '/v4/memories/list', { containerTags: [containerTag], ...extra })).body

	it('writes memories directly: 201, a done source document, searchable at once', async () => {
		const forgetAfter = new Date(Date.now() + 86_400_000).toISOString()
		const response = await create('api_1', [
			{ content: 'John prefers dark mode', isStatic: true, metadata: { app: 'editor' } },
			{
				content: 'John is travelling to Lisbon',
				forgetAfter,
				forgetReason: 'a trip',
				temporalContext: { documentDate: '2026-01-02T00:00:00Z', eventDate: ['2026-02-01'] },
			},
		])
		expect(response.status).toBe(201)
		const { documentId, memories } = response.body
		expect(documentId).toHaveLength(22)
		expect(memories).toHaveLength(2)
		for (const memory of memories) expect(Object.keys(memory).sort()).toEqual(CREATED_KEYS)
		expect(memories[0]).toMatchObject({
			memory: 'John prefers dark mode',
			isStatic: true,
			forgetAfter: null,
			forgetReason: null,
			metadata: { app: 'editor' },
		})
		expect(memories[1]).toMatchObject({
			isStatic: false,
			forgetAfter,
			forgetReason: 'a trip',
			metadata: { documentDate: '2026-01-02T00:00:00Z', eventDate: ['2026-02-01'] },
		})
		const document = await t.json('GET', `/v3/documents/${documentId}`)
		expect(document.body).toMatchObject({ status: 'done', dreamingStatus: 'done', containerTag: 'api_1' })
		expect(document.body.memories.map((m: { id: string }) => m.id).sort()).toEqual(
			memories.map((m: { id: string }) => m.id).sort(),
		)
		const found = await t.json('POST', '/v4/search', { q: 'which theme does John use', containerTag: 'api_1' })
		expect(found.body.results[0].id).toBe(memories[0].id)
		const [travel] = (await list('api_1')).memoryEntries.filter((e: { memory: string }) => e.memory.includes('Lisbon'))
		expect(travel.temporalContext).toEqual({ documentDate: '2026-01-02T00:00:00Z', eventDate: ['2026-02-01'] })
	})

	it('links directly written memories like extracted ones: duplicates merge, changed facts version', async () => {
		const first = await create('api_2', [{ content: 'Alex lives in Boston' }])
		const again = await create('api_2', [{ content: 'Alex lives in Boston' }])
		expect(again.body.memories[0].id).toBe(first.body.memories[0].id)
		const moved = await create('api_2', [{ content: 'Alex lives in Denver' }])
		const entries = (await list('api_2')).memoryEntries
		expect(entries).toHaveLength(1)
		expect(entries[0]).toMatchObject({ id: moved.body.memories[0].id, version: 2, memory: 'Alex lives in Denver' })
		expect(entries[0].history[0]).toMatchObject({ id: first.body.memories[0].id, isLatest: false })
		expect(entries[0].history[0].id).toBe(first.body.memories[0].id)
	})

	it('refuses bad memories with a 400 naming the field, storing nothing', async () => {
		const cases: [unknown, string][] = [
			[{ memories: [{ content: 'x' }] }, 'containerTag'],
			[{ containerTag: 'api_bad', memories: [] }, 'memories'],
			[{ containerTag: 'api_bad', memories: [{ content: '' }] }, 'memories[0].content'],
			[{ containerTag: 'api_bad', memories: [{ content: 'x', forgetAfter: 'someday' }] }, 'memories[0].forgetAfter'],
			[{ containerTag: 'api_bad', memories: [{ content: 'x', metadata: { nested: { a: 1 } } }] }, 'metadata'],
			[{ containerTag: 'api_bad', memories: Array.from({ length: 101 }, () => ({ content: 'x' })) }, 'memories'],
			[{ containerTag: 'api bad', memories: [{ content: 'x' }] }, 'containerTag'],
		]
		for (const [body, field] of cases) {
			const response = await t.json('POST', '/v4/memories', body)
			expect(response.status).toBe(400)
			expect(response.body.details).toContain(field)
		}
		expect((await list('api_bad')).memoryEntries).toEqual([])
	})

	it('updates a memory into version n+1, inheriting what is not given', async () => {
		const created = await create('api_3', [
			{
				content: 'Mia likes green tea',
				isStatic: true,
				metadata: { topic: 'drinks' },
				forgetAfter: '2099-01-01T00:00:00.000Z',
				forgetReason: 'far future',
			},
		])
		const v1 = created.body.memories[0]
		const updated = await t.json('PATCH', '/v4/memories', {
			containerTag: 'api_3',
			id: v1.id,
			newContent: 'Mia likes black tea',
		})
		expect(updated.status).toBe(200)
		expect(Object.keys(updated.body).sort()).toEqual(UPDATED_KEYS)
		expect(updated.body).toMatchObject({
			memory: 'Mia likes black tea',
			version: 2,
			parentMemoryId: v1.id,
			rootMemoryId: v1.id,
			forgetAfter: '2099-01-01T00:00:00.000Z',
			forgetReason: 'far future',
			metadata: { topic: 'drinks' },
		})
		// By exact content, naming the old version: the chain's latest is updated.
		const third = await t.json('PATCH', '/v4/memories', {
			containerTag: 'api_3',
			content: 'Mia likes green tea',
			newContent: 'Mia likes oolong tea',
			forgetAfter: null,
			metadata: { topic: 'tea' },
		})
		expect(third.body).toMatchObject({
			version: 3,
			parentMemoryId: updated.body.id,
			rootMemoryId: v1.id,
			forgetAfter: null,
			forgetReason: null,
			metadata: { topic: 'tea' },
		})
		const [entry] = (await list('api_3')).memoryEntries
		expect(entry).toMatchObject({ id: third.body.id, isStatic: true, sourceCount: 1 })
		expect(entry.history.map((h: { version: number }) => h.version)).toEqual([2, 1])
	})

	it('answers 404 for an unknown memory and 400 without id or content', async () => {
		const unknown = await t.json('PATCH', '/v4/memories', { containerTag: 'api_3', id: 'nope', newContent: 'x' })
		expect(unknown.status).toBe(404)
		expect(unknown.body.error).toBeString()
		const missing = await t.json('PATCH', '/v4/memories', { containerTag: 'api_3', newContent: 'x' })
		expect(missing.status).toBe(400)
		expect(missing.body.details).toContain('missing id or content')
		const wrongContainer = await t.json('DELETE', '/v4/memories', {
			containerTag: 'api_other',
			content: 'Mia likes oolong tea',
		})
		expect(wrongContainer.status).toBe(404)
		expect((await t.json('PATCH', '/v4/memories', { containerTag: 'api_3', id: 'x' })).status).toBe(400)
	})

	it('forgets one memory by id or by content; 409 when it already is, 404 when absent', async () => {
		const created = await create('api_4', [{ content: 'Leo plays chess' }, { content: 'Leo owns a cat' }])
		const [chess, cat] = created.body.memories
		const byId = await t.json('DELETE', '/v4/memories', { containerTag: 'api_4', id: chess.id, reason: 'asked to' })
		expect(byId).toEqual({ status: 200, body: { id: chess.id, forgotten: true } })
		const again = await t.request('DELETE', '/v4/memories', { body: { containerTag: 'api_4', id: chess.id } })
		expect(again.status).toBe(409)
		expect(again.headers.get('x-should-retry')).toBe('false')
		expect(((await again.json()) as { error: string }).error).toBe('Memory already forgotten')
		const byContent = await t.json('DELETE', '/v4/memories', { containerTag: 'api_4', content: 'Leo owns a cat' })
		expect(byContent.body).toEqual({ id: cat.id, forgotten: true })
		expect((await t.json('DELETE', '/v4/memories', { containerTag: 'api_4', content: 'Leo flies' })).status).toBe(404)
		const entries = (await list('api_4')).memoryEntries
		expect(entries.find((e: { id: string }) => e.id === chess.id)).toMatchObject({
			isForgotten: true,
			forgetReason: 'asked to',
		})
		const search = await t.json('POST', '/v4/search', { q: 'Leo chess cat', containerTag: 'api_4', threshold: 0 })
		expect(search.body.results).toEqual([])
	})

	it('forgets what a query matches: a dry run changes nothing, a real run tags one batch', async () => {
		await create('api_5', [
			{ content: 'Nora works at the Acme bakery' },
			{ content: 'Nora bakes sourdough bread at Acme' },
			{ content: 'Nora has a sister named Ines' },
		])
		const request = { containerTag: 'api_5', query: 'forget everything about the Acme bakery job' }
		const dry = await t.json('POST', '/v4/memories/forget-matching', { ...request, dryRun: true })
		expect(dry.status).toBe(200)
		expect(dry.body).toMatchObject({ dryRun: true, forgetBatchId: null })
		expect(dry.body.count).toBe(dry.body.candidates.length)
		expect(dry.body.candidates.map((c: { memory: string }) => c.memory).sort()).toEqual([
			'Nora bakes sourdough bread at Acme',
			'Nora works at the Acme bakery',
		])
		for (const candidate of dry.body.candidates) {
			expect(candidate.score).toBeGreaterThanOrEqual(0.5)
			expect(candidate.score).toBeLessThanOrEqual(1)
		}
		expect(dry.body.summary).toContain('Would forget 2 memories')
		expect((await list('api_5')).memoryEntries.every((e: { isForgotten: boolean }) => !e.isForgotten)).toBe(true)

		const real = await t.json('POST', '/v4/memories/forget-matching', { ...request, reason: 'left the job' })
		expect(real.body).toMatchObject({ dryRun: false, count: 2 })
		expect(real.body.forgetBatchId).toHaveLength(22)
		expect(real.body.forgotten).toHaveLength(2)
		expect(real.body.summary).toContain('Forgot 2 memories')
		const entries = (await list('api_5')).memoryEntries
		const forgotten = entries.filter((e: { isForgotten: boolean }) => e.isForgotten)
		expect(forgotten.map((e: { forgetReason: string }) => e.forgetReason)).toEqual(['left the job', 'left the job'])
		expect(entries.find((e: { memory: string }) => e.memory.includes('Ines')).isForgotten).toBe(false)

		const none = await t.json('POST', '/v4/memories/forget-matching', { ...request })
		expect(none.body).toMatchObject({ dryRun: false, count: 0, forgetBatchId: null, forgotten: [] })
	})

	it('forgets given ids (ignoring ids of other containers) at most maxForget', async () => {
		const mine = (await create('api_6', [{ content: 'a1' }, { content: 'a2' }, { content: 'a3' }])).body.memories
		const other = (await create('api_6b', [{ content: 'b1' }])).body.memories
		const result = await t.json('POST', '/v4/memories/forget-matching', {
			containerTag: 'api_6',
			ids: [...mine.map((m: { id: string }) => m.id), other[0].id],
			maxForget: 2,
		})
		expect(result.body.count).toBe(2)
		expect((await list('api_6b')).memoryEntries[0].isForgotten).toBe(false)
		const cases: [unknown, string][] = [
			[{ containerTag: 'api_6' }, 'query or ids'],
			[{ containerTag: 'api_6', query: 'x', ids: ['y'] }, 'not both'],
			[{ containerTag: 'api_6', query: 'x', threshold: 1.5 }, 'threshold'],
			[{ containerTag: 'api_6', query: 'x', maxForget: 0 }, 'maxForget'],
			[{ query: 'x' }, 'containerTag'],
		]
		for (const [body, text] of cases) {
			const response = await t.json('POST', '/v4/memories/forget-matching', body)
			expect(response.status).toBe(400)
			expect(response.body.details).toContain(text)
		}
	})

	it('lists latest memories with history, paginated, ordered and filtered', async () => {
		await create('api_7', [
			{ content: 'one', metadata: { n: 1 } },
			{ content: 'two', metadata: { n: 2 } },
			{ content: 'three', metadata: { n: 3 } },
		])
		const page = await list('api_7', { limit: 2, page: '2', order: 'asc' })
		expect(page.memoryEntries.map((e: { memory: string }) => e.memory)).toEqual(['three'])
		expect(page.pagination).toEqual({ currentPage: 2, limit: 2, totalItems: 3, totalPages: 2 })
		const newestFirst = await list('api_7')
		expect(newestFirst.memoryEntries.map((e: { memory: string }) => e.memory)).toEqual(['three', 'two', 'one'])
		for (const entry of newestFirst.memoryEntries) expect(Object.keys(entry).sort()).toEqual(ENTRY_KEYS)
		expect(newestFirst.memoryEntries[0]).toMatchObject({
			isLatest: true,
			isForgotten: false,
			isInference: false,
			spaceId: 'api_7',
			sourceCount: 1,
			memoryRelations: null,
			temporalContext: null,
			history: [],
		})
		const filtered = await list('api_7', {
			filters: { AND: [{ key: 'n', value: '2', filterType: 'numeric', numericOperator: '>=' }] },
		})
		expect(filtered.memoryEntries.map((e: { memory: string }) => e.memory)).toEqual(['three', 'two'])
		const missing = await t.json('POST', '/v4/memories/list', {})
		expect(missing.status).toBe(400)
		expect(missing.body.details).toContain('containerTags')
		expect((await t.json('POST', '/v4/memories/list', { containerTags: ['api_7'], limit: 5000 })).status).toBe(400)
	})

	it("keeps other organizations out: they cannot see, update or forget another org's memories", async () => {
		const created = (await create('api_8', [{ content: 'The vault code is 4711' }])).body.memories[0]
		const intruder = await t.createKey(`intruder-${driver}`)
		const call = (method: string, path: string, body: unknown) => t.json(method, path, body, intruder)
		expect(
			(await call('PATCH', '/v4/memories', { containerTag: 'api_8', id: created.id, newContent: 'x' })).status,
		).toBe(404)
		expect((await call('DELETE', '/v4/memories', { containerTag: 'api_8', id: created.id })).status).toBe(404)
		expect(
			(await call('DELETE', '/v4/memories', { containerTag: 'api_8', content: 'The vault code is 4711' })).status,
		).toBe(404)
		const matched = await call('POST', '/v4/memories/forget-matching', { containerTag: 'api_8', ids: [created.id] })
		expect(matched.body.count).toBe(0)
		expect((await call('POST', '/v4/memories/list', { containerTags: ['api_8'] })).body.memoryEntries).toEqual([])
		expect(
			(await call('POST', '/v4/search', { q: 'vault code', containerTag: 'api_8', threshold: 0 })).body.results,
		).toEqual([])
		const [entry] = (await list('api_8')).memoryEntries
		expect(entry).toMatchObject({ id: created.id, isForgotten: false, version: 1 })
		expect(
			(await t.request('POST', '/v4/memories/list', { body: { containerTags: ['api_8'] }, key: null })).status,
		).toBe(401)
	})
})
