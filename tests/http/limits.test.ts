import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ServerProcess, spawnServer } from '../../testkit/process.ts'
import { chunkedJson, rawRequest } from '../../testkit/raw-http.ts'

const MiB = 1024 * 1024

/** Every refusal a client can provoke by size or shape, through a real listening server started as `bun run start` does. */
describe('request limits on a listening server', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-limits-'))
	let server: ServerProcess
	let key: string
	beforeAll(async () => {
		server = await spawnServer({ MEMORY_DATA_DIR: dataDir, MEMORY_MAX_BODY_BYTES: String(MiB) })
		key = server.firstKey!
	}, 300_000)
	afterAll(async () => {
		await server.kill()
		rmSync(dataDir, { recursive: true, force: true })
	})

	const head = (method: string, path: string, headers: Record<string, string | number>) =>
		`${method} ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${key}\r\n${Object.entries(headers)
			.map(([name, value]) => `${name}: ${value}\r\n`)
			.join('')}\r\n`

	const documentCount = async () => {
		const response = await fetch(`${server.url}/v3/documents/list`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: '{}',
		})
		return ((await response.json()) as { pagination: { totalItems: number } }).pagination.totalItems
	}

	const expectJsonError = (
		response: { status: number; headers: Record<string, string>; body: string },
		status: number,
	) => {
		expect(response.status).toBe(status)
		expect(response.headers['content-type']).toContain('application/json')
		const body = JSON.parse(response.body) as { error: unknown; details: unknown }
		expect(body.error).toBeString()
		expect(body.details).toBeString()
	}

	it('refuses a chunked body over the limit with the JSON 413 and stores nothing', async () => {
		const before = await documentCount()
		const response = await rawRequest(
			server.url,
			head('POST', '/v3/documents', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
			chunkedJson(3 * MiB),
		)
		expectJsonError(response, 413)
		expect(await documentCount()).toBe(before)
	})

	it('still takes a chunked body under the limit', async () => {
		const response = await rawRequest(
			server.url,
			head('POST', '/v3/documents', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
			chunkedJson(200 * 1024),
		)
		expect(response.status).toBe(200)
		expect(JSON.parse(response.body)).toMatchObject({ status: 'queued' })
	})

	it('answers a declared 130 MiB body with the JSON 413 (above the runtime default of 128 MiB)', async () => {
		const response = await rawRequest(
			server.url,
			head('POST', '/v3/documents', { 'content-type': 'application/json', 'content-length': 130 * MiB }),
			(async function* () {
				yield '{"content":"'
				yield 'x'.repeat(MiB)
			})(),
		)
		expectJsonError(response, 413)
	})

	it('answers a 60 KB header with the JSON 431', async () => {
		const response = await rawRequest(server.url, head('GET', '/health', { 'x-padding': 'p'.repeat(60_000) }))
		expectJsonError(response, 431)
	})

	it('refuses 200 KB of nested brackets with 400 before validating, without echoing the value', async () => {
		const nested = '['.repeat(100_000) + ']'.repeat(100_000)
		for (const body of [nested, `{"content":"x","metadata":{"a":${nested}}}`]) {
			const response = await fetch(`${server.url}/v3/documents`, {
				method: 'POST',
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body,
			})
			const text = await response.text()
			expect(response.status).toBe(400)
			expect(text).toContain('deeper than 64')
			expect(text.length).toBeLessThan(500)
		}
		const health = await fetch(`${server.url}/health`)
		expect(health.status).toBe(200)
	})

	it('checks the key of POST /v3/documents/file before reading the form: 401 without or with a bad key', async () => {
		for (const authorization of [null, 'Bearer sm_not-a-key']) {
			const response = await fetch(`${server.url}/v3/documents/file`, {
				method: 'POST',
				headers: {
					'content-type': 'multipart/form-data; boundary=nothing-here',
					...(authorization ? { authorization } : {}),
				},
				body: 'this is not a multipart body',
			})
			expect(response.status).toBe(401)
			expect(((await response.json()) as { error: string }).error).toBe('Unauthorized')
		}
	})
})
