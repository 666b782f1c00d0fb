import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { testExtractor } from '../../testkit/test-extractor.ts'

type Result = {
	id: string
	type: 'memory' | 'chunk'
	memory?: string
	chunk?: string
	similarity: number
	metadata: Record<string, unknown> | null
	updatedAt: string
	version?: number
	rootMemoryId?: string | null
	context?: any
	documents?: any[]
	chunks?: any[]
}

describeEachDriver('memory search (v4)', (driver) => {
	let t: TestService
	const documents: Record<string, string> = {}
	beforeAll(async () => {
		t = await startTestService(driver, { extractor: testExtractor() })
		const sources: [string, string, string, Record<string, string | number>][] = [
			['boston', 'Alex lives in Boston. Alex works as a nurse.', 'search_1', { source: 'chat', year: 2023 }],
			['seattle', 'Alex moved to Seattle.', 'search_1', { source: 'email', year: 2024 }],
			['guide', 'Grind espresso beans fine. The extraction should take twenty-five seconds.', 'search_1', {}],
			['milk', 'Marie prefers oat milk in her cappuccino.', 'search_2', { source: 'chat', year: 2024 }],
		]
		for (const [name, content, containerTag, metadata] of sources) {
			const added = await t.json('POST', '/v3/documents', { content, containerTag, metadata, dreaming: 'instant' })
			documents[name] = (await t.waitForStatus(added.body.id)).id
		}
		const written = await t.json('POST', '/v4/memories', {
			containerTag: 'search_1',
			memories: [
				{ content: 'Alex is allergic to peanuts' },
				{ content: 'Alex is visiting Rome this week', forgetAfter: new Date(Date.now() - 60_000).toISOString() },
			],
		})
		await t.json('DELETE', '/v4/memories', { containerTag: 'search_1', id: written.body.memories[0].id })
	}, 90_000)
	afterAll(() => t.stop())

	const search = async (body: Record<string, unknown>) => {
		const response = await t.json('POST', '/v4/search', body)
		expect(response.status).toBe(200)
		return response.body as { results: Result[]; timing: number; total: number }
	}

	it('finds the current version of a fact, with a calibrated similarity above the default threshold', async () => {
		const body = await search({ q: 'where does Alex live', containerTag: 'search_1' })
		expect(typeof body.timing).toBe('number')
		expect(body.total).toBe(body.results.length)
		const [top] = body.results
		expect(top).toMatchObject({ type: 'memory', memory: 'Alex moved to Seattle.', version: 2 })
		expect(top!.rootMemoryId).toHaveLength(22)
		expect(top!.similarity).toBeGreaterThanOrEqual(0.6)
		expect(top!.metadata).toEqual({ source: 'email', year: 2024 })
		expect(Date.parse(top!.updatedAt)).not.toBeNaN()
		for (const result of body.results) {
			expect(result.type).toBe('memory')
			expect(result.chunk).toBeUndefined()
			expect(result.similarity).toBeGreaterThanOrEqual(0.6)
			expect(result.similarity).toBeLessThanOrEqual(1)
			// Older versions, forgotten and expired memories stay out by default.
			expect(['Alex lives in Boston.', 'Alex is allergic to peanuts', 'Alex is visiting Rome this week']).not.toContain(
				result.memory,
			)
		}
	})

	it('drops unrelated results at the default threshold and returns them at threshold 0', async () => {
		expect((await search({ q: 'quantum chromodynamics lecture notes', containerTag: 'search_1' })).results).toEqual([])
		const everything = await search({
			q: 'quantum chromodynamics lecture notes',
			containerTag: 'search_1',
			threshold: 0,
		})
		expect(everything.results.length).toBeGreaterThan(0)
		expect((await search({ q: 'Alex', containerTag: 'search_1', threshold: 0, limit: 1 })).results).toHaveLength(1)
	})

	it('scopes by containerTag or containerTags and applies metadata filters to memories', async () => {
		const milk = await search({ q: 'what milk does Marie like', containerTags: ['search_2'] })
		expect(milk.results.map((r) => r.memory)).toEqual(['Marie prefers oat milk in her cappuccino.'])
		const elsewhere = await search({ q: 'what milk does Marie like', containerTag: 'search_1', threshold: 0 })
		expect(elsewhere.results.map((r) => r.memory)).not.toContain('Marie prefers oat milk in her cappuccino.')
		const both = await search({ q: 'Marie oat milk', containerTags: ['search_1', 'search_2'], threshold: 0.5 })
		expect(both.results.map((r) => r.memory)).toContain('Marie prefers oat milk in her cappuccino.')

		const filtered = await search({
			q: 'Alex',
			containerTag: 'search_1',
			threshold: 0,
			filters: { AND: [{ key: 'source', value: 'chat' }] },
		})
		expect(filtered.results.map((r) => r.memory).sort()).toEqual(['Alex works as a nurse.'])
		const numeric = await search({
			q: 'Alex',
			threshold: 0,
			filters: JSON.stringify({ AND: [{ key: 'year', value: '2024', filterType: 'numeric', numericOperator: '>=' }] }),
		})
		expect(numeric.results.map((r) => r.memory).sort()).toEqual([
			'Alex moved to Seattle.',
			'Marie prefers oat milk in her cappuccino.',
		])
	})

	it('adds the version chain as context with relatedMemories', async () => {
		const body = await search({
			q: 'where does Alex live',
			containerTag: 'search_1',
			include: { relatedMemories: true },
		})
		const [top] = body.results
		expect(top!.context).toEqual({
			parents: [
				{
					relation: 'updates',
					version: -1,
					memory: 'Alex lives in Boston.',
					metadata: { source: 'chat', year: 2023 },
					updatedAt: expect.any(String),
				},
			],
			children: [],
			related: [],
		})
	})

	it('adds source documents with documents and summaries', async () => {
		const plain = (await search({ q: 'where does Alex live', containerTag: 'search_1' })).results[0]!
		expect(plain.documents).toBeUndefined()
		const withDocs = (
			await search({ q: 'where does Alex live', containerTag: 'search_1', include: { documents: true } })
		).results[0]!
		expect(withDocs.documents).toEqual([
			{
				id: documents.seattle,
				createdAt: expect.any(String),
				updatedAt: expect.any(String),
				title: 'Alex moved to Seattle.',
				type: 'text',
				metadata: { source: 'email', year: 2024 },
			},
		])
		const withSummaries = (
			await search({ q: 'where does Alex live', containerTag: 'search_1', include: { summaries: true } })
		).results[0]!
		expect(withSummaries.documents).toEqual([
			{
				id: documents.seattle,
				createdAt: expect.any(String),
				updatedAt: expect.any(String),
				summary: 'Alex moved to Seattle.',
			},
		])
	})

	it('returns memories and chunks together in hybrid mode, and chunks only in documents mode', async () => {
		const hybrid = await search({
			q: 'how long should the espresso extraction take',
			containerTag: 'search_1',
			searchMode: 'hybrid',
			threshold: 0.3,
		})
		const kinds = new Set(hybrid.results.map((r) => r.type))
		expect(kinds).toEqual(new Set(['memory', 'chunk']))
		const chunk = hybrid.results.find((r) => r.type === 'chunk')!
		expect(chunk.chunk).toContain('twenty-five seconds')
		expect(chunk.memory).toBeUndefined()
		expect(chunk.metadata).toEqual({})
		const sorted = hybrid.results.map((r) => r.similarity)
		expect(sorted).toEqual([...sorted].sort((a, b) => b - a))

		const chunks = await search({ q: 'espresso extraction', containerTag: 'search_1', searchMode: 'documents' })
		expect(chunks.results.length).toBeGreaterThan(0)
		for (const result of chunks.results) {
			expect(result.type).toBe('chunk')
			expect(typeof result.chunk).toBe('string')
		}
	})

	it('answers a small limit with the first results of a large one (only the best candidates are read)', async () => {
		const people = ['Bea', 'Carl', 'Dana', 'Emil', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jana', 'Kurt', 'Lea', 'Milo']
		for (const [i, name] of people.entries()) {
			for (const content of [`${name} lives in Porto ${i}.`, `${name} moved to Lyon ${i}.`]) {
				const added = await t.json('POST', '/v3/documents', {
					content,
					containerTag: 'search_cut',
					dreaming: 'instant',
				})
				await t.waitForStatus(added.body.id)
			}
		}
		for (const q of ['where does Dana live', 'who lives in Porto', 'moved to Lyon', 'Milo Porto']) {
			for (const searchMode of ['memories', 'hybrid']) {
				const all = await search({ q, containerTag: 'search_cut', searchMode, threshold: 0, limit: 40 })
				expect(all.results.length).toBeGreaterThanOrEqual(people.length)
				for (const limit of [1, 3, 5]) {
					const few = await search({ q, containerTag: 'search_cut', searchMode, threshold: 0, limit })
					const view = (results: Result[]) => results.map((r) => [r.id, r.similarity])
					expect(view(few.results)).toEqual(view(all.results.slice(0, limit)))
				}
			}
		}
	}, 90_000)

	it('leaves out forgotten and expired memories unless forgottenMemories asks for them', async () => {
		const query = { q: 'Alex allergic peanuts visiting Rome', containerTag: 'search_1', threshold: 0 }
		const hidden = (await search(query)).results.map((r) => r.memory)
		expect(hidden).not.toContain('Alex is allergic to peanuts')
		expect(hidden).not.toContain('Alex is visiting Rome this week')
		const shown = (await search({ ...query, include: { forgottenMemories: true } })).results.map((r) => r.memory)
		expect(shown).toContain('Alex is allergic to peanuts')
		expect(shown).toContain('Alex is visiting Rome this week')
	})

	it('embeds matching chunks of the source documents with the deprecated include.chunks', async () => {
		const body = await search({ q: 'Alex works as a nurse', containerTag: 'search_1', include: { chunks: true } })
		const nurse = body.results.find((r) => r.memory === 'Alex works as a nurse.')!
		expect(nurse.chunks!.length).toBeGreaterThan(0)
		expect(nurse.chunks![0]).toEqual({
			content: 'Alex lives in Boston. Alex works as a nurse.',
			score: expect.any(Number),
			position: 0,
			documentId: documents.boston,
		})
	})

	it('accepts rerank, aggregate and rewriteQuery and the defaults the published clients send', async () => {
		const body = await search({
			q: 'where does Alex live',
			containerTag: 'search_1',
			threshold: 0.6,
			limit: 10,
			rerank: true,
			aggregate: false,
			rewriteQuery: true,
			searchMode: 'memories',
			include: { documents: false, summaries: false, relatedMemories: false, forgottenMemories: false, chunks: false },
		})
		expect(body.results[0]!.memory).toBe('Alex moved to Seattle.')
	})

	it('refuses bad input with a 400 naming the field', async () => {
		const cases: [Record<string, unknown>, string][] = [
			[{}, 'q'],
			[{ q: '' }, 'q'],
			[{ q: 'x', threshold: 2 }, 'threshold'],
			[{ q: 'x', limit: 0 }, 'limit'],
			[{ q: 'x', searchMode: 'everything' }, 'searchMode'],
			[{ q: 'x', include: { everything: true } }, 'include'],
			[{ q: 'x', containerTag: 'bad tag!' }, 'containerTag'],
			[{ q: 'x', filters: { AND: [{ key: 'a' }] } }, 'filters'],
			[{ q: 'x', surprise: 1 }, 'surprise'],
		]
		for (const [body, field] of cases) {
			const response = await t.json('POST', '/v4/search', body)
			expect(response.status).toBe(400)
			expect(response.body.error).toBeString()
			expect(response.body.details).toContain(field)
		}
	})
})
