import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('POST /v3/documents/:id/retry', (driver) => {
	let t: TestService
	let site: ReturnType<typeof Bun.serve>
	let up = false
	beforeAll(async () => {
		site = Bun.serve({
			port: 0,
			hostname: '127.0.0.1',
			fetch: () =>
				up
					? new Response('<html><body><p>The lighthouse lamp is lit at dusk every evening.</p></body></html>', {
							headers: { 'content-type': 'text/html' },
						})
					: new Response('gone', { status: 404 }),
		})
		t = await startTestService(driver, { env: { MEMORY_URL_ALLOWLIST: '127.0.0.1' } })
	}, 240_000)
	afterAll(async () => {
		await t.stop()
		site.stop(true)
	})

	it('processes a failed document again and it reaches done', async () => {
		const added = await t.json('POST', '/v3/documents', { content: `http://127.0.0.1:${site.port}/page` })
		const failed = await t.waitForStatus(added.body.id)
		expect(failed.status).toBe('failed')
		up = true
		const retried = await t.json('POST', `/v3/documents/${added.body.id}/retry`)
		expect(retried).toEqual({ status: 200, body: { id: added.body.id, status: 'queued' } })
		const done = await t.waitForStatus(added.body.id)
		expect(done.status).toBe('done')
		expect(done.content ?? '').toContain('127.0.0.1')
		const chunks = await t.json('GET', `/v3/documents/${added.body.id}/chunks`)
		expect(JSON.stringify(chunks.body)).toContain('lighthouse')
	})

	it('refuses a document that has not failed with 409, and an unknown one with 404', async () => {
		const added = await t.json('POST', '/v3/documents', { content: 'A quiet harbour.' })
		await t.waitForStatus(added.body.id)
		const answer = await t.json('POST', `/v3/documents/${added.body.id}/retry`)
		expect(answer.status).toBe(409)
		expect(answer.body.details).toContain('done')
		expect((await t.json('POST', '/v3/documents/nope/retry')).status).toBe(404)
	})
})
