import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { rawRequest } from '../../testkit/raw-http.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describe('a request with a malformed Host header', () => {
	let t: TestService
	let base: string
	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: null })
		const server = t.service.app!.listen({ port: 0, hostname: '127.0.0.1' })
		base = `http://127.0.0.1:${server.server!.port}`
	}, 60_000)
	afterAll(async () => {
		await t.service.app!.stop(true)
		await t.stop()
	})

	it('gets a JSON 400, never an error page with a stack, paths or source', async () => {
		for (const host of ['a b', '', 'x@y', 'host:99999']) {
			for (const [method, path] of [
				['POST', '/health'],
				['POST', '/v3/documents'],
				['GET', '/nowhere'],
			]) {
				const body = method === 'POST' ? '{}' : ''
				const head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`
				const answer = await rawRequest(base, head, null, 5_000)
				const label = `${method} ${path} Host "${host}"`
				expect(`${label} ${answer.status}`).toBe(`${label} 400`)
				expect(answer.headers['content-type']).toContain('application/json')
				expect(answer.body).not.toContain('__bunfallback')
				expect(answer.body).not.toContain(process.cwd())
			}
		}
	})
})
