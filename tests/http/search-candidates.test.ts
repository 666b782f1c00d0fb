import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** 1,400 notes of about 85 characters (about 125 chunks), all of the island; ten name the quokka, apart. */
const NOTES = 1400
const WITH_THE_WORD = 10

function islandLog(): string {
	return Array.from({ length: NOTES }, (_, i) =>
		i % (NOTES / WITH_THE_WORD) === 0
			? `Note ${i}: the quokka on the island was seen near the ferry landing at dawn.`
			: `Note ${i}: the island harbour office logged freight, tides and the weather that day.`,
	).join('\n\n')
}

describeEachDriver('document search (v3) candidates', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver)
		const added = await t.json('POST', '/v3/documents', { content: islandLog(), containerTag: 'log' })
		await t.waitForStatus(added.body.id)
	}, 60_000)
	afterAll(() => t.stop())

	it('draws five candidates per result from each ranking, as v4 does', async () => {
		const response = await t.json('POST', '/v3/search', {
			q: 'quokka island',
			containerTags: ['log'],
			limit: 10,
			onlyMatchingChunks: true,
		})
		expect(response.status).toBe(200)
		const [log] = response.body.results
		const chunks: { content: string }[] = log.chunks
		expect(chunks.filter((chunk) => chunk.content.includes('quokka'))).toHaveLength(WITH_THE_WORD)
		// Every chunk matches a word; each ranking gives its best 50, and both rank the quokka chunks first: at most 90
		// chunks (100 or more when each drew 100).
		expect(chunks.length).toBeGreaterThanOrEqual(50)
		expect(chunks.length).toBeLessThanOrEqual(90)
	})
})
