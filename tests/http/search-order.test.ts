import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const NEAR_DUPLICATES = 30

/** Near-duplicates that differ only in a courier's name and a parcel code (words the embedder does not know). */
const delivery = (n: number) =>
	`The courier Vantrel${n} delivered parcel KP${String(n).padStart(4, '0')}Z to the north depot after lunch.`

describeEachDriver('/v3/search order and noise', (driver) => {
	let t: TestService
	const tag = 'v3_order'
	const ids = new Map<string, string>()
	beforeAll(async () => {
		t = await startTestService(driver, { extractor: null })
		const texts = [
			...Array.from({ length: NEAR_DUPLICATES }, (_, i) => delivery(i + 1)),
			'Paul plays the cello in a string quartet.',
			'Marie prefers oat milk in her cappuccino.',
			'Oat milk is made by blending oats with water.',
		]
		for (const content of texts) {
			const { body } = await t.json('POST', '/v3/documents', { content, containerTag: tag })
			ids.set(content, body.id)
		}
		for (const id of ids.values()) await t.waitForStatus(id, ['done'], undefined, 120_000)
	}, 300_000)
	afterAll(() => t?.stop())

	const search = async (q: string, extra: Record<string, unknown> = {}) => {
		const reply = await t.json('POST', '/v3/search', { q, containerTag: tag, limit: 100, ...extra })
		expect(reply.status).toBe(200)
		return reply.body.results as { documentId: string; score: number; chunks: { score: number }[] }[]
	}

	it('returns documents in score order', async () => {
		for (const q of ['who delivered parcel KP0017Z', 'a courier at the depot', 'milk and oats in the morning']) {
			const results = await search(q)
			expect(results.length).toBeGreaterThan(2)
			const scores = results.map((result) => result.score)
			expect(scores).toEqual([...scores].sort((a, b) => b - a))
			for (const result of results) expect(result.score).toBe(Math.max(...result.chunks.map((c) => c.score)))
		}
	})

	it('keeps the document holding the exact code searched for first among near-duplicates', async () => {
		for (const n of [3, 17, 29]) {
			const code = `KP${String(n).padStart(4, '0')}Z`
			for (const q of [`who delivered parcel ${code}?`, code, `parcel ${code}`]) {
				const results = await search(q, { limit: 5 })
				expect(results[0]?.documentId).toBe(ids.get(delivery(n))!)
			}
		}
	})

	it('leaves out results that match the query neither by meaning nor by word', async () => {
		const results = await search('oat milk')
		const cello = ids.get('Paul plays the cello in a string quartet.')!
		expect(results.map((result) => result.documentId)).not.toContain(cello)
		expect(results.every((result) => result.score > 0)).toBe(true)
		expect(results.slice(0, 2).map((result) => result.documentId)).toEqual(
			expect.arrayContaining([
				ids.get('Marie prefers oat milk in her cappuccino.')!,
				ids.get('Oat milk is made by blending oats with water.')!,
			]),
		)
	})
})
