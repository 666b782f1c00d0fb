import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const COUNT = 50

/** Sentences that differ only in words the word-vector embedder does not know: a name and a parcel code. */
function delivery(n: number): { courier: string; parcel: string; content: string } {
	const courier = `Zorbel${n}`
	const parcel = `QX${String(n).padStart(4, '0')}K`
	return {
		courier,
		parcel,
		content: `The courier ${courier} delivered parcel ${parcel} to the warehouse on Tuesday morning.`,
	}
}

describeEachDriver('distinct facts stay distinct memories', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver)
	}, 180_000)
	afterAll(() => t?.stop())

	it(`forms ${COUNT} memories from ${COUNT} statements that differ only in names and codes`, async () => {
		const tag = 'courier_log'
		const ids: string[] = []
		for (let n = 1; n <= COUNT; n++) {
			const { body } = await t.json('POST', '/v3/documents', {
				content: delivery(n).content,
				containerTag: tag,
				dreaming: 'instant',
			})
			ids.push(body.id)
		}
		for (const id of ids)
			expect((await t.waitForStatus(id, ['done', 'failed'], undefined, 120_000)).status).toBe('done')

		const listed = await t.json('POST', '/v4/memories/list', { containerTags: [tag], limit: 100 })
		expect(listed.status).toBe(200)
		const memories = listed.body.memoryEntries as { memory: string; isLatest?: boolean }[]
		for (let n = 1; n <= COUNT; n++) {
			const { courier, parcel } = delivery(n)
			const holding = memories.filter((m) => m.memory.includes(`${courier} `) && m.memory.includes(parcel))
			expect(holding.length).toBe(1)
		}
		expect(memories.length).toBe(COUNT)

		const question = await t.json('POST', '/v4/search', { q: 'Who delivered parcel QX0002K?', containerTag: tag })
		expect(question.status).toBe(200)
		expect(question.body.results[0].memory).toContain('Zorbel2 ')
		expect(question.body.results[0].memory).toContain('QX0002K')
	}, 240_000)
})
