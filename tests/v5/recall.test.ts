import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** Search, profile, buckets, memories and list of v5 over memories written through v4. */
describeEachDriver('v5 recall', (driver) => {
	let t: TestService
	const ids: Record<string, string> = {}
	beforeAll(async () => {
		t = await startTestService(driver)
		const created = await t.json('POST', '/v4/memories', {
			containerTag: 'alice',
			memories: [
				{
					content: 'Alice works as a nurse at the city hospital',
					isStatic: true,
					metadata: { kind: 'work', level: 3 },
				},
				{ content: 'Alice is married to Bob', isStatic: true, metadata: { kind: 'Family', tags: ['home'] } },
				{ content: 'Alice plays the guitar in a band on Fridays', metadata: { kind: 'hobby', level: 1 } },
			],
		})
		expect(created.status).toBe(201)
		for (const memory of created.body.memories) ids[memory.memory] = memory.id
		await t.json('POST', '/v4/memories', { containerTag: 'bob', memories: [{ content: 'Bob repairs bicycles' }] })
	}, 120_000)
	afterAll(() => t.stop())

	it('searches a namespace (hybrid by default) with the v5 result shape', async () => {
		const found = await t.json('POST', '/ns/alice/search', { query: 'guitar band', threshold: 0 })
		expect(found.status).toBe(200)
		expect(typeof found.body.searchTime).toBe('number')
		const top = found.body.results[0]
		expect(top.memory).toBe('Alice plays the guitar in a band on Fridays')
		expect(Object.keys(top).sort()).toEqual([
			'id',
			'isInference',
			'isLatest',
			'memory',
			'metadata',
			'similarity',
			'system',
		])
		expect(top.isLatest).toBe(true)
		expect(top.system.updatedAt).toMatch(/Z$/)
		expect(found.body.results.some((r: { memory?: string }) => r.memory?.startsWith('Bob'))).toBe(false)
	})

	it('applies the typed filter: every operator, caseSensitive, bare predicates and nesting', async () => {
		const search = async (filter: unknown) =>
			(
				await t.json('POST', '/ns/alice/search', { query: 'Alice', threshold: 0, searchMode: 'memories', filter })
			).body.results
				.map((r: { memory: string }) => r.memory)
				.sort()
		const nurse = 'Alice works as a nurse at the city hospital'
		const married = 'Alice is married to Bob'
		const guitar = 'Alice plays the guitar in a band on Fridays'
		expect(await search({ field: 'kind', operator: 'eq', value: 'work' })).toEqual([nurse])
		expect(await search({ field: 'kind', operator: 'eq', value: 'family' })).toEqual([])
		expect(await search({ field: 'kind', operator: 'eq', value: 'family', caseSensitive: false })).toEqual([married])
		expect(await search({ field: 'kind', operator: 'neq', value: 'work' })).toEqual([married, guitar].sort())
		expect(await search({ field: 'level', operator: 'eq', value: 3 })).toEqual([nurse])
		expect(await search({ field: 'level', operator: 'gt', value: 1 })).toEqual([nurse])
		expect(await search({ field: 'level', operator: 'gte', value: 1 })).toEqual([nurse, guitar].sort())
		expect(await search({ field: 'level', operator: 'lt', value: 3 })).toEqual([guitar])
		expect(await search({ field: 'level', operator: 'lte', value: 3 })).toEqual([nurse, guitar].sort())
		expect(await search({ field: 'kind', operator: 'contains', value: 'ob' })).toEqual([guitar])
		expect(await search({ field: 'kind', operator: 'notContains', value: 'ob' })).toEqual([nurse, married].sort())
		expect(await search({ field: 'tags', operator: 'arrayContains', value: 'home' })).toEqual([married])
		expect(await search({ field: 'tags', operator: 'arrayNotContains', value: 'home' })).toEqual([nurse, guitar].sort())
		expect(
			await search({
				operator: 'or',
				operands: [
					{ field: 'kind', operator: 'eq', value: 'hobby' },
					{ operator: 'and', operands: [{ field: 'level', operator: 'gte', value: 2 }] },
				],
			}),
		).toEqual([nurse, guitar].sort())
	})

	it('refuses filters beyond 5 levels or 200 operands, and malformed predicates', async () => {
		let deep: unknown = { field: 'a', operator: 'eq', value: 'b' }
		for (let i = 0; i < 6; i++) deep = { operator: 'and', operands: [deep] }
		const wide = {
			operator: 'or',
			operands: Array.from({ length: 201 }, () => ({ field: 'a', operator: 'eq', value: 'b' })),
		}
		for (const filter of [
			deep,
			wide,
			{ field: 'a b', operator: 'eq', value: 'x' },
			{ field: 'a', operator: 'gt', value: 'x' },
			{ field: 'a', operator: 'like', value: 'x' },
			{ field: 'a', operator: 'eq', value: 'x', extra: 1 },
			{ operator: 'and', operands: [] },
		]) {
			const answer = await t.json('POST', '/ns/alice/search', { query: 'x', filter })
			expect(answer.status).toBe(400)
			expect(answer.body.success).toBe(false)
		}
		let five: unknown = { field: 'a', operator: 'eq', value: 'b' }
		for (let i = 0; i < 5; i++) five = { operator: 'and', operands: [five] }
		expect((await t.json('POST', '/ns/alice/search', { query: 'x', filter: five })).status).toBe(200)
	})

	it('aggregates: results repeating a better-ranked one are merged into it; order keeps them all', async () => {
		for (const content of [
			'Dana keeps her bees on the library roof.',
			'Tom says Dana keeps her bees on the library roof.',
			'Dana sells honey at the Saturday market.',
		]) {
			await t.waitForStatus((await t.json('POST', '/ns/apiary/document', { content })).body.id)
		}
		const search = async (rerank: string) =>
			(
				await t.json('POST', '/ns/apiary/search', {
					query: 'where does Dana keep bees',
					rerank,
					threshold: 0,
					searchMode: 'chunks',
				})
			).body.results as { chunk: string }[]
		const ordered = await search('order')
		expect(ordered.filter((r) => r.chunk.includes('bees'))).toHaveLength(2)
		const aggregated = await search('aggregate')
		expect(aggregated.filter((r) => r.chunk.includes('bees'))).toHaveLength(1)
		expect(aggregated.some((r) => r.chunk.includes('honey'))).toBe(true)
	})

	it('checks search limits and accepts rewriteQuery, rerank and include', async () => {
		for (const body of [
			{ query: '' },
			{ query: 'x', limit: 0 },
			{ query: 'x', limit: 101 },
			{ query: 'x', threshold: 1.5 },
			{ query: 'x', rerank: 'yes' },
			{ query: 'x', include: { summaries: true } },
		]) {
			expect((await t.json('POST', '/ns/alice/search', body)).status).toBe(400)
		}
		const answer = await t.json('POST', '/ns/alice/search', {
			query: 'nurse hospital',
			rewriteQuery: true,
			rerank: 'aggregate',
			threshold: 0,
			include: { documents: true, related: true, forgotten: false },
		})
		expect(answer.status).toBe(200)
		const top = answer.body.results[0]
		expect(top.included.related).toEqual({ parents: [], children: [], siblings: [] })
		expect(top.included.document.id).toBeString()
		const chunks = await t.json('POST', '/ns/alice/search', { query: 'nurse', searchMode: 'chunks', threshold: 0 })
		expect(chunks.status).toBe(200)
		for (const result of chunks.body.results) {
			expect(result.chunk).toBeString()
			expect(result.isInference).toBe(false)
		}
	})

	it('answers the profile as {id, memory} facts, JSON by default and markdown on request', async () => {
		const empty = await t.request('POST', '/ns/alice/profile')
		expect(empty.status).toBe(200)
		const { profile } = (await empty.json()) as any
		expect(profile.static.map((f: { memory: string }) => f.memory).sort()).toEqual([
			'Alice is married to Bob',
			'Alice works as a nurse at the city hospital',
		])
		expect(profile.static[0].id).toBe(ids[profile.static[0].memory])
		expect(profile.dynamic).toEqual([
			{ id: ids['Alice plays the guitar in a band on Fridays'], memory: 'Alice plays the guitar in a band on Fridays' },
		])
		expect(profile.buckets).toEqual({})
		const filtered = await t.json('POST', '/ns/alice/profile', {
			filter: { field: 'kind', operator: 'eq', value: 'work' },
		})
		expect(filtered.body.profile.static.map((f: { memory: string }) => f.memory)).toEqual([
			'Alice works as a nurse at the city hospital',
		])
		const markdown = await t.request('POST', '/ns/alice/profile', { body: {}, headers: { accept: 'text/markdown' } })
		expect(markdown.headers.get('content-type')).toContain('text/markdown')
		expect(await markdown.text()).toContain('- Alice is married to Bob')
		expect((await t.json('POST', '/ns/alice/profile', { q: 'x' })).status).toBe(400)
	})

	it('manages namespace buckets; organization buckets are read-only here (409)', async () => {
		await t.json('PATCH', '/v3/settings', { profileBuckets: [{ key: 'work', description: 'Jobs' }] })
		const initial = await t.json('GET', '/ns/alice/profile/buckets')
		expect(initial.body).toEqual({ buckets: { work: 'Jobs' } })
		const put = await t.json('PUT', '/ns/alice/profile/buckets', { buckets: { music: 'Instruments and bands' } })
		expect(put.body).toEqual({ buckets: { work: 'Jobs', music: 'Instruments and bands' } })
		expect((await t.json('PUT', '/ns/alice/profile/buckets', { buckets: { work: 'x' } })).status).toBe(409)
		expect((await t.json('PUT', '/ns/alice/profile/buckets', { buckets: { 'Bad Name': 'x' } })).status).toBe(400)
		expect((await t.json('PUT', '/ns/nobody/profile/buckets', { buckets: { music: 'x' } })).status).toBe(404)
		const profile = await t.json('POST', '/ns/alice/profile', { buckets: ['music'] })
		expect(Object.keys(profile.body.profile.buckets)).toEqual(['music'])
		expect((await t.json('DELETE', '/ns/alice/profile/buckets', { buckets: ['work'] })).status).toBe(409)
		const removed = await t.json('DELETE', '/ns/alice/profile/buckets', { buckets: ['music', 'unknown'] })
		expect(removed.body).toEqual({ buckets: { work: 'Jobs' } })
		// v4 sees the same definitions.
		expect((await t.json('POST', '/v4/profile/buckets', { containerTag: 'alice' })).body.buckets).toEqual([
			{ key: 'work', description: 'Jobs' },
		])
	})

	it('lists memories, chunks and documents with page, limit, sort and order', async () => {
		const memories = await t.json('POST', '/ns/alice/list/memories?limit=2&page=1&sort=createdAt&order=asc', {})
		expect(memories.status).toBe(200)
		expect(memories.body.documents).toEqual([])
		expect(memories.body.chunks).toEqual([])
		expect(memories.body.memories).toHaveLength(2)
		expect(memories.body.pagination).toEqual({ currentPage: 1, limit: 2, totalItems: 3, totalPages: 2 })
		expect(Object.keys(memories.body.memories[0]).sort()).toEqual([
			'id',
			'isForgotten',
			'isInference',
			'isLatest',
			'isStatic',
			'memory',
			'metadata',
			'system',
			'version',
		])
		// A document written through v3 is listed by v5, chunks included.
		const v3 = await t.json('POST', '/v3/documents', {
			content: 'The bakery opens at seven. It sells rye bread and croissants.',
			containerTag: 'bakery',
			metadata: { shop: 'north' },
		})
		await t.waitForStatus(v3.body.id)
		const chunks = await t.request('POST', '/ns/bakery/list/chunks?sort=position&order=asc&limit=100')
		const chunkBody = (await chunks.json()) as any
		expect(chunks.status).toBe(200)
		expect(chunkBody.chunks.length).toBeGreaterThan(0)
		expect(chunkBody.chunks[0].documentId).toBe(v3.body.id)
		const filteredChunks = await t.json('POST', '/ns/bakery/list/chunks', {
			filter: { field: 'shop', operator: 'eq', value: 'south' },
		})
		expect(filteredChunks.body.chunks).toEqual([])
		const listed = await t.json('POST', '/ns/bakery/list/documents', {})
		expect(listed.body.documents.map((d: { id: string }) => d.id)).toEqual([v3.body.id])
		expect(listed.body.documents[0]).not.toHaveProperty('content')
		const documents = await t.json('POST', '/ns/alice/list/documents', {
			filter: { field: 'nothing', operator: 'eq', value: 'x' },
		})
		expect(documents.body.documents).toEqual([])
		for (const query of ['?limit=0', '?limit=101', '?page=0', '?sort=position', '?order=up']) {
			expect((await t.json('POST', `/ns/alice/list/memories${query}`, {})).status).toBe(400)
		}
		expect((await t.json('POST', '/ns/alice/list/everything', {})).status).toBe(400)
	})

	it('gets a memory with related memories and its document', async () => {
		const id = ids['Alice is married to Bob']!
		const got = await t.json('GET', `/ns/alice/memories/${id}?include=related,documents&relatedLimit=5`)
		expect(got.status).toBe(200)
		expect(got.body.memory).toBe('Alice is married to Bob')
		expect(got.body.included.related).toEqual({ parents: [], children: [], siblings: [] })
		expect(got.body.included.document.id).toBeString()
		expect((await t.json('GET', `/ns/bob/memories/${id}`)).status).toBe(404)
		expect((await t.json('GET', `/ns/alice/memories/${id}?relatedLimit=101`)).status).toBe(400)
	})

	it('previews and forgets by description (dryRun required), then by ids with per-id errors', async () => {
		expect((await t.json('DELETE', '/ns/alice/memories/semantic', { query: 'guitar' })).status).toBe(400)
		const preview = await t.json('DELETE', '/ns/alice/memories/semantic', {
			query: 'plays the guitar in a band',
			dryRun: true,
		})
		expect(preview.status).toBe(200)
		expect(preview.body.matches.map((m: { memory: string }) => m.memory)).toContain(
			'Alice plays the guitar in a band on Fridays',
		)
		expect(preview.body.errors).toEqual([])
		const stillThere = await t.json('POST', '/ns/alice/list/memories', {})
		expect(stillThere.body.pagination.totalItems).toBe(3)
		const guitar = ids['Alice plays the guitar in a band on Fridays']!
		const forgot = await t.json('DELETE', '/ns/alice/memories', { ids: [guitar, 'missing'] })
		expect(forgot.body).toEqual({
			count: 1,
			errors: [{ id: 'missing', error: expect.any(String) }],
			matches: [{ id: guitar, memory: 'Alice plays the guitar in a band on Fridays' }],
		})
		const active = await t.json('POST', '/ns/alice/list/memories', {})
		expect(active.body.pagination.totalItems).toBe(2)
		const all = await t.json('POST', '/ns/alice/list/memories', { include: { forgotten: true } })
		expect(all.body.memories.find((m: { id: string }) => m.id === guitar).isForgotten).toBe(true)
		const recalled = await t.json('POST', '/ns/alice/search', {
			query: 'guitar band',
			threshold: 0,
			include: { forgotten: true },
		})
		expect(recalled.body.results.find((r: { id: string }) => r.id === guitar)?.isLatest).toBe(false)
		expect((await t.json('DELETE', '/ns/alice/memories', { ids: [] })).status).toBe(400)
	})
})
