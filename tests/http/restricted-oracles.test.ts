import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startRestrictedScene } from '../../testkit/restricted-key.ts'
import type { TestService } from '../../testkit/service.ts'

describeEachDriver("a restricted key probing another tag's documents", (driver) => {
	let t: TestService
	let restricted: string
	let bravo: string
	beforeAll(async () => {
		;({ t, restricted, bravo } = await startRestrictedScene(driver, {
			content: 'Bravo policy: shared drives are audited monthly.',
			customId: 'shared-policy',
		}))
	}, 120_000)
	afterAll(() => t.stop())

	it('gets the same 404 from /v3/search {docId} for a hidden document as for one that does not exist', async () => {
		const answers = []
		for (const docId of [bravo, 'shared-policy', 'doesnotexist123']) {
			const answer = await t.json('POST', '/v3/search', { q: 'audited', docId }, restricted)
			answers.push({ status: answer.status, body: answer.body })
		}
		expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404])
		expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1)
		// The admin still searches within it.
		const admin = await t.json('POST', '/v3/search', { q: 'audited', docId: 'shared-policy' })
		expect(admin.status).toBe(200)
		expect(admin.body.results.map((r: { documentId: string }) => r.documentId)).toEqual([bravo])
	})
})
