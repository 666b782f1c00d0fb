import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestService, type TestService } from '../../testkit/service.ts'

describe('request validation and errors', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { env: { MEMORY_MAX_BODY_BYTES: '4096' } })
	}, 60_000)
	afterAll(() => t.stop())

	const countDocuments = async () =>
		(await t.json('POST', '/v3/documents/list', { limit: 1 })).body.pagination.totalItems as number

	const rejected: [string, unknown, string][] = [
		['a container tag over 100 characters', { content: 'x', containerTag: 'a'.repeat(101) }, 'containerTag'],
		['a container tag with a bad character', { content: 'x', containerTag: 'user.1' }, 'containerTag'],
		['a nested metadata object', { content: 'x', metadata: { a: { b: 1 } } }, 'metadata'],
		['a metadata array of numbers', { content: 'x', metadata: { a: [1, 2] } }, 'metadata'],
		['an unknown dreaming mode', { content: 'x', dreaming: 'sometimes' }, 'dreaming'],
		['an unknown field', { content: 'x', colour: 'blue' }, 'colour'],
		['empty content', { content: '' }, 'content'],
		['missing content', { containerTag: 'x' }, 'content'],
		['a customId over 255 characters', { content: 'x', customId: 'c'.repeat(256) }, 'customId'],
	]
	for (const [what, body, field] of rejected) {
		it(`rejects ${what} with a 400 naming ${field} and stores nothing`, async () => {
			const before = await countDocuments()
			const response = await t.json('POST', '/v3/documents', body)
			expect(response.status).toBe(400)
			expect(response.body.error).toBe('Invalid request parameters')
			expect(response.body.details).toContain(field)
			expect(JSON.stringify(response.body)).not.toContain(' at ')
			expect(await countDocuments()).toBe(before)
		})
	}

	it('rejects malformed JSON with a 400 JSON error', async () => {
		const response = await t.request('POST', '/v3/documents', { body: '{"content": ' })
		expect(response.status).toBe(400)
		expect(response.headers.get('content-type')).toContain('application/json')
		expect(((await response.json()) as { error: unknown }).error).toBeString()
	})

	it('rejects a body over the configured limit with 413', async () => {
		const response = await t.request('POST', '/v3/documents', { body: { content: 'x'.repeat(5000) } })
		expect(response.status).toBe(413)
		expect(await response.json()).toMatchObject({ error: 'Payload too large' })
	})

	it('answers unknown routes with a 404 JSON error', async () => {
		const response = await t.request('GET', '/v3/nothing-here')
		expect(response.status).toBe(404)
		expect(await response.json()).toMatchObject({ error: 'Not found' })
	})

	it('rejects filters nested deeper than 5 levels and out-of-range search fields', async () => {
		let filter: Record<string, unknown> = { key: 'a', value: 'b' }
		for (let i = 0; i < 6; i++) filter = { AND: [filter] }
		const deep = await t.json('POST', '/v3/search', { q: 'x', filters: filter })
		expect(deep.status).toBe(400)
		expect(deep.body.details).toContain('5')
		const threshold = await t.json('POST', '/v3/search', { q: 'x', chunkThreshold: 1.5 })
		expect(threshold.status).toBe(400)
		expect(threshold.body.details).toContain('chunkThreshold')
		const limit = await t.json('POST', '/v3/search', { q: 'x', limit: 0 })
		expect(limit.status).toBe(400)
		const empty = await t.json('POST', '/v3/search', { q: '' })
		expect(empty.status).toBe(400)
		expect(empty.body.details).toContain('q')
	})

	it('rejects a bad page size on list', async () => {
		const response = await t.json('POST', '/v3/documents/list', { limit: 5000 })
		expect(response.status).toBe(400)
		expect(response.body.details).toContain('limit')
	})
})
