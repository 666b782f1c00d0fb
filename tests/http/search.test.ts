import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const LONG_GUIDE = [
	'# Espresso guide',
	'',
	'Grind the beans fine, like table salt. Use eighteen grams of coffee for a double shot.',
	'',
	'Preheat the portafilter and the cup with hot water before pulling the shot.',
	'',
	'Tamp evenly with about fifteen kilograms of pressure. The extraction should take twenty-five to thirty seconds.',
	'',
	'Steam the milk to sixty degrees Celsius for a flat white; a microfoam should look glossy like wet paint.',
].join('\n')

describeEachDriver('document search (v3)', (driver) => {
	let t: TestService
	const ids: Record<string, string> = {}
	beforeAll(async () => {
		t = await startTestService(driver)
		const docs: [string, string, string, Record<string, string | number | string[]>][] = [
			['espresso', LONG_GUIDE, 'kitchen', { topic: 'coffee', year: 2023, tags: ['drinks', 'howto'] }],
			[
				'bikes',
				'Replace the bicycle chain every three thousand kilometres and oil it monthly.',
				'garage',
				{ topic: 'bikes', year: 2021, tags: ['repair'] },
			],
			[
				'tea',
				'Green tea brews best at eighty degrees for two minutes.',
				'kitchen',
				{ topic: 'Tea', year: 2024, tags: ['drinks'] },
			],
		]
		for (const [name, content, containerTag, metadata] of docs) {
			const added = await t.json('POST', '/v3/documents', { content, containerTag, metadata })
			ids[name] = added.body.id
		}
		for (const id of Object.values(ids)) await t.waitForStatus(id)
	}, 60_000)
	afterAll(() => t.stop())

	it('finds a done document by meaning and by words, grouped with its matching chunks', async () => {
		const response = await t.json('POST', '/v3/search', { q: 'how long should the espresso extraction take' })
		expect(response.status).toBe(200)
		expect(typeof response.body.timing).toBe('number')
		const [top] = response.body.results
		expect(top.documentId).toBe(ids.espresso)
		expect(top.title).toBe('Espresso guide')
		expect(top.type).toBe('text')
		expect(top.metadata).toEqual({ topic: 'coffee', year: 2023, tags: ['drinks', 'howto'] })
		expect(top.chunks.length).toBeGreaterThan(0)
		expect(top.chunks[0].isRelevant).toBe(true)
		expect(top.chunks.map((c: { content: string }) => c.content).join(' ')).toContain('twenty-five to thirty seconds')
		expect(response.body.total).toBe(response.body.results.length)
		for (const result of response.body.results) {
			expect(result.score).toBeGreaterThanOrEqual(0)
			expect(result.score).toBeLessThanOrEqual(1)
			for (const chunk of result.chunks) {
				expect(chunk.score).toBeGreaterThanOrEqual(0)
				expect(chunk.score).toBeLessThanOrEqual(1)
			}
		}
	})

	it('scopes by container tag and honours limit', async () => {
		const garage = await t.json('POST', '/v3/search', { q: 'espresso coffee beans', containerTag: 'garage' })
		expect(garage.body.results.every((r: { documentId: string }) => r.documentId === ids.bikes)).toBe(true)
		const limited = await t.json('POST', '/v3/search', { q: 'drinks brew degrees', limit: 1 })
		expect(limited.body.results).toHaveLength(1)
		const both = await t.json('POST', '/v3/search', { q: 'chain oil', containerTags: ['kitchen', 'garage'] })
		expect(both.body.results[0].documentId).toBe(ids.bikes)
	})

	it('applies metadata, numeric, array and string filters, as an object or a JSON string', async () => {
		const search = async (filters: unknown) =>
			(await t.json('POST', '/v3/search', { q: 'degrees coffee tea chain', filters })).body.results
				.map((r: { documentId: string }) => r.documentId)
				.sort()
		expect(await search({ AND: [{ key: 'topic', value: 'coffee' }] })).toEqual([ids.espresso])
		expect(await search({ AND: [{ key: 'topic', value: 'tea', ignoreCase: true }] })).toEqual([ids.tea])
		expect(
			await search({ AND: [{ key: 'year', value: '2022', filterType: 'numeric', numericOperator: '>=' }] }),
		).toEqual([ids.espresso, ids.tea].sort())
		expect(
			await search(JSON.stringify({ OR: [{ key: 'tags', value: 'repair', filterType: 'array_contains' }] })),
		).toEqual([ids.bikes])
		expect(await search({ AND: [{ key: 'topic', value: 'off', filterType: 'string_contains' }] })).toEqual([
			ids.espresso,
		])
		expect(
			await search({ AND: [{ key: 'tags', value: 'drinks', filterType: 'array_contains', negate: 'true' }] }),
		).toEqual([ids.bikes])
		expect(
			await search({
				OR: [
					{
						AND: [
							{ key: 'topic', value: 'bikes' },
							{ key: 'year', value: '2021' },
						],
					},
					{ key: 'topic', value: 'coffee' },
				],
			}),
		).toEqual([ids.bikes, ids.espresso].sort())
	})

	it('searches inside one document with docId, and 404s for an unknown one', async () => {
		const inside = await t.json('POST', '/v3/search', { q: 'milk', docId: ids.espresso })
		expect(inside.body.results.map((r: { documentId: string }) => r.documentId)).toEqual([ids.espresso])
		expect((await t.json('POST', '/v3/search', { q: 'milk', docId: 'unknown-doc' })).status).toBe(404)
	})

	it('adds full content and summary on request, and drops chunks under chunkThreshold', async () => {
		const full = await t.json('POST', '/v3/search', {
			q: 'green tea',
			includeFullDocs: true,
			includeSummary: true,
			limit: 1,
		})
		expect(full.body.results[0].content).toBe('Green tea brews best at eighty degrees for two minutes.')
		expect(full.body.results[0]).toHaveProperty('summary')
		const strict = await t.json('POST', '/v3/search', { q: 'green tea', chunkThreshold: 1 })
		expect(strict.body.results).toEqual([])
	})

	it('adds the chunks around each match when onlyMatchingChunks is false', async () => {
		const sections = ['Alpine lakes', 'Desert dunes', 'Volcanic islands', 'Arctic tundra', 'Coral reefs']
		const content = sections
			.map((title, i) => `## ${title}\n\n${`Section ${i} describes ${title.toLowerCase()} in detail. `.repeat(12)}`)
			.join('\n\n')
		const added = await t.json('POST', '/v3/documents', { content, containerTag: 'atlas' })
		await t.waitForStatus(added.body.id)
		const all = (await t.json('GET', `/v3/documents/${added.body.id}/chunks`)).body.chunks
		expect(all.length).toBeGreaterThanOrEqual(5)
		const ranked = (await t.json('POST', '/v3/search', { q: 'volcanic islands', containerTag: 'atlas' })).body
			.results[0]
		const best = ranked.chunks[0]
		expect(best.content).toContain('Volcanic islands')
		// Only the best chunk passes the threshold; its neighbours come back as context.
		const query = { q: 'volcanic islands', containerTag: 'atlas', limit: 1, chunkThreshold: best.score }
		const matching = (await t.json('POST', '/v3/search', query)).body.results[0]
		expect(matching.chunks.map((c: { position: number }) => c.position)).toEqual([best.position])
		const withContext = (await t.json('POST', '/v3/search', { ...query, onlyMatchingChunks: false })).body.results[0]
		const positions = withContext.chunks.map((c: { position: number }) => c.position)
		expect(positions).toEqual([...positions].sort((a: number, b: number) => a - b))
		expect(positions).toContain(best.position - 1)
		expect(positions).toContain(best.position + 1)
		const neighbour = withContext.chunks.find((c: { position: number }) => c.position === best.position - 1)
		expect(neighbour.isRelevant).toBe(false)
	})

	it('accepts rerank and rewriteQuery as no-ops without a reranker', async () => {
		const plain = await t.json('POST', '/v3/search', { q: 'bicycle chain' })
		const flagged = await t.json('POST', '/v3/search', { q: 'bicycle chain', rerank: true, rewriteQuery: true })
		expect(flagged.status).toBe(200)
		expect(flagged.body.results.map((r: { documentId: string }) => r.documentId)).toEqual(
			plain.body.results.map((r: { documentId: string }) => r.documentId),
		)
	})
})
