import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startRestrictedScene } from '../../testkit/restricted-key.ts'
import type { TestService } from '../../testkit/service.ts'

const SECRET = 'Bravo secret: the launch code is 7741-RACE.'

describeEachDriver('a restricted key and a customId another tag holds', (driver) => {
	let t: TestService
	let restricted: string
	let bravo: string
	beforeAll(async () => {
		;({ t, restricted, bravo } = await startRestrictedScene(driver, {
			content: SECRET,
			customId: 'race-target',
			dreaming: 'instant',
		}))
	}, 120_000)
	afterAll(() => t.stop())

	it("resolves the customId among the key's own tags, even when another tag's document is newer", async () => {
		const own = await t.json(
			'POST',
			'/v3/documents',
			{ content: 'Alpha notes.', containerTag: 'tag_a', customId: 'shared-name' },
			restricted,
		)
		await t.waitForStatus(own.body.id, undefined, restricted)
		// The admin's tag_b document with the same customId is the most recently updated.
		const newer = await t.json('POST', '/v3/documents', {
			content: 'Bravo notes.',
			containerTag: 'tag_b',
			customId: 'shared-name',
		})
		await t.waitForStatus(newer.body.id)
		const read = await t.json('GET', '/v3/documents/shared-name', undefined, restricted)
		expect(read.status).toBe(200)
		expect(read.body.id).toBe(own.body.id)
		const patched = await t.json('PATCH', '/v3/documents/shared-name', { metadata: { seen: true } }, restricted)
		expect(patched.body.id).toBe(own.body.id)
		const chunks = await t.json('GET', '/v3/documents/shared-name/chunks', undefined, restricted)
		expect(chunks.body.documentId).toBe(own.body.id)
		expect((await t.json('GET', `/v3/documents/${newer.body.id}`)).body.metadata).toBeNull()
	}, 60_000)

	it('never reads nor overwrites it through a decoy deleted while a request by customId runs', async () => {
		const leaks: string[] = []
		for (let attempt = 0; attempt < 24; attempt++) {
			const decoy = await t.json(
				'POST',
				'/v3/documents',
				{ content: `decoy ${attempt}`, containerTag: 'tag_a', customId: 'race-target' },
				restricted,
			)
			expect(decoy.status).toBe(200)
			const offset = attempt % 12
			const [, chunks, patched, retried] = await Promise.all([
				Bun.sleep(offset).then(() => t.request('DELETE', `/v3/documents/${decoy.body.id}`, { key: restricted })),
				t.json('GET', '/v3/documents/race-target/chunks', undefined, restricted),
				t.json(
					'PATCH',
					'/v3/documents/race-target',
					{ content: `Overwritten through tag_a (${attempt}).` },
					restricted,
				),
				t.json('GET', '/v3/documents/race-target/file-url', undefined, restricted),
			])
			if (JSON.stringify(chunks.body).includes('7741-RACE')) leaks.push(`chunks read at attempt ${attempt}`)
			if (patched.body?.id === bravo) leaks.push(`overwritten at attempt ${attempt}`)
			if (retried.status === 200) leaks.push(`file URL at attempt ${attempt}`)
			for (const answer of [chunks, patched]) expect([200, 404]).toContain(answer.status)
			// What the patch may have made of the decoy is gone too before the next attempt.
			const leftover = await t.json('GET', '/v3/documents/race-target', undefined, restricted)
			if (leftover.status === 200) await t.request('DELETE', `/v3/documents/${leftover.body.id}`, { key: restricted })
		}
		expect(leaks).toEqual([])
		const target = await t.json('GET', `/v3/documents/${bravo}`)
		expect(target.body.content).toBe(SECRET)
	}, 120_000)
})
