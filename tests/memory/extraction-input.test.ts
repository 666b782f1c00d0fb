import { afterAll, beforeAll, expect, it } from 'bun:test'
import type { ExtractionInput } from '../../core/index.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { recordingExtractor } from '../../testkit/test-extractor.ts'
import { waitFor } from '../../testkit/wait.ts'

describeEachDriver('memory formation context', (driver) => {
	let t: TestService
	const extractor = recordingExtractor()
	beforeAll(async () => {
		t = await startTestService(driver, { extractor, env: { MEMORY_DREAMING_QUIET_SECONDS: '1' } })
	}, 60_000)
	afterAll(() => t.stop())

	/** Adds a document with instant dreaming, waits until its memories are formed, and returns what the extractor got. */
	const form = async (body: Record<string, unknown>): Promise<ExtractionInput> => {
		const added = await t.json('POST', '/v3/documents', { ...body, dreaming: 'instant' })
		expect(added.status).toBe(200)
		const done = await t.waitForStatus(added.body.id)
		expect(done.status).toBe('done')
		expect(done.dreamingStatus).toBe('done')
		const input = extractor.inputs.find((i) => i.documentId === added.body.id)
		if (!input) throw new Error(`the extractor never saw document ${added.body.id}`)
		return input
	}

	it("gives the extractor the container tag's entityContext, and a document's own one over it", async () => {
		const tagContext = 'The user is Dana Ruiz, a veterinarian in Porto'
		const patched = await t.json('PATCH', '/v3/container-tags/dana', { entityContext: tagContext })
		expect(patched.status).toBe(200)

		const fromTag = await form({ content: 'I adopted a grey cat last spring.', containerTag: 'dana' })
		expect(fromTag.containerTag).toBe('dana')
		expect(fromTag.entityContext).toBe(tagContext)

		const ownContext = 'Written by Dana about her neighbour Mo'
		const own = await form({
			content: 'Mo repaired the fence on Sunday.',
			containerTag: 'dana',
			entityContext: ownContext,
		})
		expect(own.entityContext).toBe(ownContext)

		const elsewhere = await form({ content: 'The bakery opens at seven.', containerTag: 'no-context' })
		expect(elsewhere.entityContext).toBeNull()
	})

	it("gives every document of a dynamic dreaming batch the tag's entityContext", async () => {
		const tagContext = 'The user is Ines Costa, a ferry captain'
		expect((await t.json('PATCH', '/v3/container-tags/ines', { entityContext: tagContext })).status).toBe(200)
		const added = await Promise.all(
			['I sail to Madeira on Mondays.', 'My first boat was a small sloop.'].map((content) =>
				t.json('POST', '/v3/documents', { content, containerTag: 'ines', dreaming: 'dynamic' }),
			),
		)
		for (const { body } of added) {
			await waitFor(async () => (await t.json('GET', `/v3/documents/${body.id}`)).body.dreamingStatus === 'done')
			expect(extractor.inputs.find((i) => i.documentId === body.id)?.entityContext).toBe(tagContext)
		}
	})

	it('sorts formed memories into the tag buckets they match, and leaves the rest out of every bucket', async () => {
		// Setting buckets re-sorts the tag's memories in the background: wait until that pass has sorted an earlier
		// memory, so the document's memories below can only have been sorted when they were formed.
		const earlier = 'Priya works long hours at the office'
		await t.json('POST', '/v4/memories', { containerTag: 'sorted', memories: [{ content: earlier }] })
		const patched = await t.json('PATCH', '/v3/container-tags/sorted', {
			profileBuckets: [
				{ key: 'work', description: 'job, office, manager' },
				{ key: 'health', description: 'doctor, exercise, sleep' },
			],
		})
		expect(patched.status).toBe(200)
		await waitFor(async () => {
			const { body } = await t.json('POST', '/v4/profile', { containerTag: 'sorted', include: ['buckets'] })
			return body.profile.buckets.work?.includes(earlier)
		})

		const work = 'Priya asked her manager for a raise at the office.'
		const health = 'Priya saw the doctor about her knee.'
		const neither = 'The tram to the harbour was painted yellow.'
		const input = await form({ content: `${work} ${health} ${neither}`, containerTag: 'sorted' })
		expect(input.buckets?.map((b) => b.key)).toEqual(['work', 'health'])

		const { status, body } = await t.json('POST', '/v4/profile', { containerTag: 'sorted', include: ['buckets'] })
		expect(status).toBe(200)
		expect(body.profile.buckets).toEqual({ work: expect.arrayContaining([earlier, work]), health: [health] })
		expect(body.profile.buckets.work).toHaveLength(2)
		const all = await t.json('POST', '/v4/profile', { containerTag: 'sorted', include: ['static', 'dynamic'] })
		expect([...all.body.profile.static, ...all.body.profile.dynamic]).toContain(neither)
	})
})
