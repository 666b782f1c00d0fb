import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { callError, callOk, connectMcp, listen } from '../../testkit/mcp.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const INITIALIZE = {
	jsonrpc: '2.0',
	id: 1,
	method: 'initialize',
	params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}

describe('MCP endpoint /mcp', () => {
	let service: TestService
	let server: ReturnType<typeof listen>

	beforeAll(async () => {
		service = await startTestService('pglite', {
			env: { MEMORY_MCP_ALLOWED_HOSTS: 'memory.example.com', MEMORY_MCP_ALLOWED_ORIGINS: 'app.example.com' },
		})
		server = listen(service)
	}, 300_000)

	afterAll(async () => {
		await server?.stop()
		await service?.stop()
	})

	const post = (headers: Record<string, string>, body: unknown = INITIALIZE) =>
		fetch(server.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
			body: JSON.stringify(body),
		})

	describe('authentication', () => {
		it('answers a request without a key with 401 and a challenge naming the protected-resource metadata', async () => {
			const response = await post({})
			expect(response.status).toBe(401)
			const challenge = response.headers.get('www-authenticate')!
			expect(challenge).toStartWith('Bearer ')
			const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1]
			expect(metadataUrl).toBe(`${server.origin}/.well-known/oauth-protected-resource/mcp`)
			expect((await response.json()) as any).toEqual({
				error: 'Unauthorized',
				details: 'Missing Authorization header (expected "Bearer <api key>")',
			})
			const metadata = await fetch(metadataUrl!)
			expect(metadata.status).toBe(200)
			expect(await metadata.json()).toMatchObject({
				resource: `${server.origin}/mcp`,
				bearer_methods_supported: ['header'],
			})
			expect((await fetch(`${server.origin}/.well-known/oauth-protected-resource`)).status).toBe(200)
		})

		it('answers a wrong key with 401 invalid_token, and the SDK client fails to connect', async () => {
			const response = await post({ authorization: 'Bearer sm_not_a_real_key_at_all' })
			expect(response.status).toBe(401)
			expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
			expect(response.headers.get('www-authenticate')).toContain('resource_metadata="')
			expect(((await response.json()) as any).details).toBe('Invalid or revoked API key')
			await expect(connectMcp(server.url, 'sm_not_a_real_key_at_all')).rejects.toThrow()
			await expect(connectMcp(server.url, 'sm_not_a_real_key_at_all', { era: 'modern' })).rejects.toThrow()
		})

		it('answers a malformed Authorization header with 401', async () => {
			const response = await post({ authorization: `Token ${service.key}` })
			expect(response.status).toBe(401)
			expect(((await response.json()) as any).details).toBe('Authorization header must be "Bearer <api key>"')
		})

		it('takes the same API keys as the REST API', async () => {
			const response = await post({ authorization: `Bearer ${service.key}` })
			expect(response.status).toBe(200)
			// The stateless 2025-era leg answers as a one-event stream.
			const data = (await response.text()).split('\n').find((line) => line.startsWith('data: '))!
			expect(JSON.parse(data.slice(6)).result.serverInfo.name).toBe('memory-service')
		})

		it('refuses an x-sm-project header that is not a valid container tag with 400', async () => {
			const response = await post({ authorization: `Bearer ${service.key}`, 'x-sm-project': 'no spaces allowed' })
			expect(response.status).toBe(400)
			expect(((await response.json()) as any).details).toContain('containerTag "no spaces allowed" must be')
		})
	})

	describe('stateless serving', () => {
		it('answers GET and DELETE (2025 session operations) with 405', async () => {
			const headers = { authorization: `Bearer ${service.key}`, accept: 'text/event-stream' }
			expect((await fetch(server.url, { headers })).status).toBe(405)
			expect((await fetch(server.url, { method: 'DELETE', headers })).status).toBe(405)
		})

		it('issues no session id', async () => {
			const response = await post({ authorization: `Bearer ${service.key}` })
			expect(response.status).toBe(200)
			expect(response.headers.get('mcp-session-id')).toBeNull()
		})
	})

	describe('DNS rebinding protection', () => {
		const handle = (headers: Record<string, string>) =>
			service.service.app!.handle(
				new Request('http://localhost/mcp', {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						accept: 'application/json, text/event-stream',
						authorization: `Bearer ${service.key}`,
						...headers,
					},
					body: JSON.stringify(INITIALIZE),
				}),
			)

		it('refuses a Host that is neither localhost nor configured, with 403 before the key is looked at', async () => {
			const response = await handle({ host: 'attacker.example' })
			expect(response.status).toBe(403)
			const body = (await response.json()) as any
			expect(body.error).toBe('Host not allowed')
			expect(body.details).toContain('MEMORY_MCP_ALLOWED_HOSTS')
			expect((await handle({ host: 'attacker.example', authorization: '' })).status).toBe(403)
		})

		it('serves localhost names and the hosts of MEMORY_MCP_ALLOWED_HOSTS', async () => {
			expect((await handle({ host: 'localhost:8787' })).status).toBe(200)
			expect((await handle({ host: '127.0.0.1' })).status).toBe(200)
			expect((await handle({ host: 'memory.example.com' })).status).toBe(200)
		})

		it('refuses a browser Origin that is not allowed, and serves localhost and configured origins', async () => {
			const evil = await handle({ host: 'localhost', origin: 'https://attacker.example' })
			expect(evil.status).toBe(403)
			expect(((await evil.json()) as any).error).toBe('Origin not allowed')
			expect((await handle({ host: 'localhost', origin: 'null' })).status).toBe(403)
			expect((await handle({ host: 'localhost', origin: 'http://localhost:3000' })).status).toBe(200)
			expect((await handle({ host: 'localhost', origin: 'https://app.example.com' })).status).toBe(200)
		})
	})

	describe('input limits', () => {
		it('answers malformed JSON with a 4xx and stores nothing', async () => {
			const before = await service.json('POST', '/v3/documents/list', {})
			const response = await fetch(server.url, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					accept: 'application/json, text/event-stream',
					authorization: `Bearer ${service.key}`,
				},
				body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_memory"',
			})
			expect(response.status).toBeGreaterThanOrEqual(400)
			expect(response.status).toBeLessThan(500)
			const after = await service.json('POST', '/v3/documents/list', {})
			expect(after.body.totalCount).toBe(before.body.totalCount)
		})

		it('answers a body over MEMORY_MAX_BODY_BYTES with 413', async () => {
			const call = {
				jsonrpc: '2.0',
				id: 2,
				method: 'tools/call',
				params: { name: 'add_memory', arguments: { content: 'x'.repeat(11 * 1024 * 1024) } },
			}
			const response = await post({ authorization: `Bearer ${service.key}` }, call)
			expect(response.status).toBe(413)
			expect(((await response.json()) as any).error).toBe('Payload too large')
			const client = await connectMcp(server.url, service.key)
			try {
				expect((await callOk(client, 'listDocuments')).documents).toEqual([])
			} finally {
				await client.close()
			}
		})
	})

	describe('usage and quotas', () => {
		it('counts tool searches as searches and answers an exhausted quota with a tool error', async () => {
			const key = await service.createKey('mcp-quota')
			const usage = async () => (await service.json('GET', '/v3/usage', undefined, key)).body
			const client = await connectMcp(server.url, key)
			try {
				await callOk(client, 'search_memory', { query: 'anything at all', includeProfile: false })
				await Bun.sleep(1100) // the meter flushes within a second
				const { orgId, totals } = await usage()
				expect(totals.searches).toBe(1)
				await service.service.plugins.storage.usage.setQuota(orgId, 'searches', { period: 'day', max: 1 })
				await Bun.sleep(2100) // the meter caches quotas for two seconds
				const refused = await callError(client, 'search_memory', { query: 'anything at all' })
				expect(refused).toContain('Quota exhausted')
				expect(refused).toContain('searches')
			} finally {
				await client.close()
			}
		}, 30_000)
	})
})
