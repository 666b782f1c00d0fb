import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** Routes a client reaches without an API key, each with the reason it is open. */
const OPEN: Record<string, string> = {
	'GET /': 'the landing answer',
	'GET /health': 'the health check',
	'GET /swagger': 'the API reference',
	'GET /swagger/assets/:name': 'the API reference',
	'GET /openapi.json': 'the API description',
	'GET /v5/swagger': 'the API reference',
	'GET /v5/openapi': 'the API description',
	'GET /v3/connections/auth/start/:provider': 'a browser follows the sealed authorization link',
	'GET /v3/connections/auth/callback/:provider': 'the provider sends the browser back with the sealed state',
	'POST /v3/connections/webhooks/:provider': 'the provider signs its deliveries',
	'GET /v3/files/:documentId/:name': 'a signed, expiring file link',
	'GET /.well-known/oauth-protected-resource': 'MCP discovery',
	'GET /.well-known/oauth-protected-resource/mcp': 'MCP discovery',
	'GET /console': 'the console page; it asks for a key itself',
	'GET /console/:name': 'the console assets',
}

const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, 'x')

describe('route authentication', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite')
	}, 60_000)
	afterAll(() => t.stop())

	it('answers 401 to a request without a key on every route not listed as open', async () => {
		const routes: { method: string; path: string }[] = (t.service.app as any).routes
		const guarded = routes.filter((route) => !OPEN[`${route.method} ${route.path}`])
		expect(guarded.length).toBeGreaterThan(100)
		const answers: string[] = []
		for (const route of guarded) {
			const method = route.method === 'ALL' ? 'POST' : route.method
			const body = method === 'GET' ? undefined : {}
			const response = await t.request(method, concrete(route.path), {
				body,
				key: null,
				headers: { host: 'localhost' },
			})
			answers.push(`${route.method} ${route.path} ${response.status}`)
		}
		expect(answers).toEqual(guarded.map((route) => `${route.method} ${route.path} 401`))
	})

	it('lists as open only routes the service serves', () => {
		const served = new Set(
			((t.service.app as any).routes as { method: string; path: string }[]).map((r) => `${r.method} ${r.path}`),
		)
		expect(Object.keys(OPEN).filter((route) => !served.has(route))).toEqual([])
	})
})
