import { afterAll, beforeAll, expect, it } from 'bun:test'
import type Supermemory from 'supermemory'
import { type ClientHarness, startClientHarness } from '../../testkit/client.ts'
import { clientTypeErrors } from '../../testkit/client-types.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'

/** The request a third-party client sends right after its documents are `done` (official client shape). */
const SEARCH = { limit: 10, threshold: 0.3, include: { chunks: true } }

describeEachDriver('memory search while memories are forming (dynamic dreaming)', (driver) => {
	let harness: ClientHarness
	let client: Supermemory
	beforeAll(async () => {
		// A quiet time long enough that the first searches run before formation, short enough to wait for it.
		harness = await startClientHarness(driver, { env: { MEMORY_DREAMING_QUIET_SECONDS: '15' } })
		client = harness.client
	}, 180_000)
	afterAll(() => harness?.stop())

	const waitDreamed = async (id: string) => {
		const deadline = Date.now() + 120_000
		while (Date.now() < deadline) {
			const { body } = await harness.t.json('GET', `/v3/documents/${id}`)
			if (body.dreamingStatus === 'done') return
			await Bun.sleep(100)
		}
		throw new Error(`memories of ${id} were not formed`)
	}

	it('answers from the chunks of done documents until their memories exist, then from the memories alone', async () => {
		const tag = 'forming_user'
		const sailing = await client.add({
			content: 'Rosalind keeps her sailboat Windrunner moored at the Kestrel marina.',
			containerTag: tag,
		})
		const baking = await client.add({
			content: 'Rosalind bakes sourdough bread every Sunday morning.',
			containerTag: tag,
		})
		for (const id of [sailing.id, baking.id]) {
			const document = await harness.waitDone(id)
			expect(document.status).toBe('done')
		}
		expect((await harness.t.json('GET', `/v3/documents/${sailing.id}`)).body.dreamingStatus).toBe('dreaming')

		const early = await client.search.memories({
			q: 'Where is the sailboat Windrunner moored?',
			containerTag: tag,
			...SEARCH,
		})
		expect(early.results.length).toBeGreaterThan(0)
		expect(clientTypeErrors('SearchMemoriesResponse', early)).toEqual([])
		const first = early.results[0]! as (typeof early.results)[number] & { provisional?: boolean; documentId?: string }
		expect(first.chunk).toContain('Kestrel marina')
		expect(first.provisional).toBe(true)
		expect(first.documentId).toBe(sailing.id)
		expect(first.similarity).toBeGreaterThanOrEqual(0.3)
		expect(first.similarity).toBeLessThanOrEqual(1)
		// Held to the same threshold: an unrelated query finds nothing.
		const unrelated = await client.search.memories({
			q: 'quantum chromodynamics lecture',
			containerTag: tag,
			...SEARCH,
		})
		expect(unrelated.results).toEqual([])

		// The profile's search results too.
		const profile = await harness.t.json('POST', '/v4/profile', {
			containerTag: tag,
			q: 'Where is the sailboat Windrunner moored?',
			threshold: 0.3,
		})
		expect(profile.status).toBe(200)
		expect(profile.body.searchResults.results[0]).toMatchObject({ provisional: true, documentId: sailing.id })
		expect(clientTypeErrors('ProfileResponse', profile.body)).toEqual([])

		// Another organization sees none of it.
		const otherKey = await harness.t.createKey('forming-other-org')
		const foreign = await harness.t.json(
			'POST',
			'/v4/search',
			{ q: 'Where is the sailboat Windrunner moored?', containerTag: tag, ...SEARCH },
			otherKey,
		)
		expect(foreign.status).toBe(200)
		expect(foreign.body.results).toEqual([])

		await waitDreamed(sailing.id)
		await waitDreamed(baking.id)
		const late = await client.search.memories({
			q: 'Where is the sailboat Windrunner moored?',
			containerTag: tag,
			...SEARCH,
		})
		expect(late.results.length).toBeGreaterThan(0)
		expect(late.results.every((result) => result.memory !== undefined && result.chunk === undefined)).toBe(true)
		expect(late.results[0]!.memory).toContain('Kestrel marina')
		const texts = late.results.map((result) => result.memory)
		expect(new Set(texts).size).toBe(texts.length)
		expect(late.results.filter((result) => result.memory!.includes('Windrunner'))).toHaveLength(1)
	}, 240_000)

	it('keeps hybrid and documents modes as they were: chunks of every document, not marked provisional', async () => {
		const tag = 'forming_modes'
		const added = await client.add({ content: 'Tobias repairs vintage typewriters in Lisbon.', containerTag: tag })
		await harness.waitDone(added.id)
		for (const searchMode of ['hybrid', 'documents'] as const) {
			const answer = await harness.t.json('POST', '/v4/search', {
				q: 'who repairs vintage typewriters',
				containerTag: tag,
				searchMode,
				threshold: 0.3,
			})
			expect(answer.status).toBe(200)
			expect(answer.body.results[0]).toMatchObject({ type: 'chunk', documentId: added.id })
			expect(answer.body.results[0].provisional).toBeUndefined()
		}
	}, 60_000)
})
