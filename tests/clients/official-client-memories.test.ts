import { afterAll, beforeAll, expect, it } from 'bun:test'
import Supermemory from 'supermemory'
import { type ClientHarness, failure, startClientHarness } from '../../testkit/client.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'

/**
 * The published client's v4 calls (search, search.memories, memories.updateMemory, memories.forget) against a real
 * listening server with the default extractor (extractor-rules): a chat becomes memories, a changed fact a version.
 */
describeEachDriver('official supermemory client (v4): memories', (driver) => {
	let harness: ClientHarness
	let client: Supermemory
	beforeAll(async () => {
		harness = await startClientHarness(driver)
		client = harness.client
	}, 60_000)
	afterAll(() => harness.stop())
	const waitDone = (id: string) => harness.waitDone(id)

	/** A chat sent as `role: text` lines under one customId, as the brief describes; re-sent with more turns. */
	async function sendChat(lines: string[]) {
		const added = await client.add({
			content: lines.join('\n'),
			containerTag: 'client_chat',
			customId: 'session-1',
			// Not in the v4 client's types, but sent as given.
			dreaming: 'instant',
		} as Parameters<Supermemory['add']>[0])
		return waitDone(added.id)
	}

	it('turns a chat into memories that search finds, and a changed fact into a new version', async () => {
		const opening = ['user: Hi! I live in Boston.', 'assistant: Nice to meet you!']
		await sendChat(opening)
		const first = await client.search({ q: 'where does the user live', containerTag: 'client_chat' })
		const boston = first.results.find((r) => r.memory?.includes('Boston'))
		expect(boston?.version).toBe(1)
		expect(boston!.similarity).toBeGreaterThanOrEqual(0.6)

		await sendChat([...opening, 'user: I just moved to Seattle.', 'assistant: How exciting!'])
		const second = await client.search.memories({
			q: 'where does the user live',
			containerTag: 'client_chat',
			include: { relatedMemories: true, documents: true },
		})
		const [top] = second.results
		expect(top!.memory).toContain('Seattle')
		expect(top!.version).toBe(2)
		expect(top!.context?.parents).toEqual([
			expect.objectContaining({ relation: 'updates', version: -1, memory: boston!.memory }),
		])
		expect(top!.documents?.[0]?.id).toHaveLength(22)
		expect(second.total).toBe(second.results.length)
		expect(second.results.map((r) => r.id)).not.toContain(boston!.id)
	})

	it('updates a memory into a new version and forgets it, with the client error for a second forget', async () => {
		const found = await client.search({ q: 'where does the user live', containerTag: 'client_chat' })
		const current = found.results[0]!
		const updated = await client.memories.updateMemory({
			containerTag: 'client_chat',
			id: current.id,
			newContent: 'The user lives in Portland',
		})
		expect(updated).toMatchObject({
			memory: 'The user lives in Portland',
			version: (current.version ?? 0) + 1,
			parentMemoryId: current.id,
			forgetAfter: null,
			forgetReason: null,
		})
		expect(updated.rootMemoryId).toHaveLength(22)

		const forgotten = await client.memories.forget({ containerTag: 'client_chat', id: updated.id, reason: 'moved on' })
		expect(forgotten).toEqual({ id: updated.id, forgotten: true })
		expect(await failure(client.memories.forget({ containerTag: 'client_chat', id: updated.id }))).toBeInstanceOf(
			Supermemory.ConflictError,
		)
		expect(
			await failure(client.memories.forget({ containerTag: 'client_chat', content: 'nothing like this' })),
		).toBeInstanceOf(Supermemory.NotFoundError)
		const after = await client.search({ q: 'where does the user live Portland', containerTag: 'client_chat' })
		expect(after.results.map((r) => r.id)).not.toContain(updated.id)
		const withForgotten = await client.search({
			q: 'where does the user live Portland',
			containerTag: 'client_chat',
			include: { forgottenMemories: true },
		})
		expect(withForgotten.results.map((r) => r.id)).toContain(updated.id)
	})

	it('forgets by exact content through the client', async () => {
		const document = await client.documents.add({
			content: 'My favourite food is Thai curry.',
			containerTag: 'client_food',
			dreaming: 'instant',
		} as Parameters<Supermemory['documents']['add']>[0])
		const done = await waitDone(document.id)
		const memory = (done as unknown as { memories: { id: string; memory: string }[] }).memories[0]!
		const forgotten = await client.memories.forget({ containerTag: 'client_food', content: memory.memory })
		expect(forgotten).toEqual({ id: memory.id, forgotten: true })
	})
})
