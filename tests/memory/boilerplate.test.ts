import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { waitFor } from '../../testkit/wait.ts'

const FOOTER = 'This message and any attachments are confidential and intended only for the named addressee.'

const FACTS = [
	'Dana moved the quarterly review to the Lisbon office on Monday.',
	'The courier Zorbel1 delivered parcel QX0001K to the Porto warehouse on Tuesday morning.',
	'Marco signed the lease for the second floor of the Faro building last week.',
	'Ines approved the budget for the autumn hiring round yesterday.',
]

const email = (fact: string) => `Hello team,\n\n${fact}\n\n${FOOTER}`

describeEachDriver('boilerplate across a container', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver, { env: { MEMORY_DREAMING_QUIET_SECONDS: '1' } })
	}, 180_000)
	afterAll(() => t?.stop())

	async function ingest(containerTag: string, contents: string[]): Promise<string[]> {
		const { body } = await t.json('POST', '/v3/documents/batch', {
			documents: contents.map((content) => ({ content })),
			containerTag,
		})
		const ids = (body.results as { id: string }[]).map((result) => result.id)
		for (const id of ids) {
			await waitFor(async () => {
				const { body: document } = await t.json('GET', `/v3/documents/${id}`)
				return document.status === 'failed' || document.dreamingStatus === 'done'
			}, 60_000)
		}
		return ids
	}

	async function memories(containerTag: string): Promise<string[]> {
		const { body } = await t.json('POST', '/v4/memories/list', { containerTags: [containerTag], limit: 100 })
		return (body.memoryEntries as { memory: string }[]).map((entry) => entry.memory)
	}

	it('forms no memory from a line repeated across the documents, and every memory of what each says', async () => {
		await ingest('mail_boilerplate', FACTS.map(email))
		const formed = await memories('mail_boilerplate')
		expect(formed.some((memory) => memory.toLowerCase().includes('confidential'))).toBe(false)
		for (const place of ['Lisbon', 'Porto', 'Faro', 'autumn hiring']) {
			expect(formed.some((memory) => memory.includes(place))).toBe(true)
		}
	}, 120_000)

	it('counts only the container’s own documents: a line that another container repeats is kept', async () => {
		await ingest('mail_single', [email(FACTS[0]!)])
		const formed = await memories('mail_single')
		expect(formed.some((memory) => memory.toLowerCase().includes('confidential'))).toBe(true)
	}, 120_000)
})
