import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createClaudeMemoryTool } from '@supermemory/tools/claude-memory'
import { type ClientHarness, startClientHarness } from '../../testkit/client.ts'

describe('a write naming several container tags', () => {
	let harness: ClientHarness
	let baseUrl: string
	beforeAll(async () => {
		harness = await startClientHarness('pglite', { extractor: null })
		baseUrl = harness.client.baseURL
	}, 60_000)
	afterAll(() => harness.stop())

	const post = (path: string, body: unknown) =>
		fetch(`${baseUrl}${path}`, {
			method: 'POST',
			headers: { authorization: `Bearer ${harness.t.key}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		})

	async function expectRuleRefused(response: Response) {
		expect(response.status).toBe(400)
		const body = (await response.json()) as { details: string }
		expect(body.details).toContain('a document belongs to exactly one container tag')
		expect(body.details).toContain('"a", "b"')
	}

	it('is refused by add, batch, file upload and conversations, and nothing is stored', async () => {
		await expectRuleRefused(await post('/v3/documents', { content: 'two tags', containerTags: ['a', 'b'] }))
		await expectRuleRefused(
			await post('/v3/documents', { content: 'two tags', containerTag: 'a', containerTags: ['b'] }),
		)
		await expectRuleRefused(await post('/v3/documents/batch', { documents: ['one'], containerTags: ['a', 'b'] }))
		const batch = await post('/v3/documents/batch', { documents: [{ content: 'one', containerTags: ['a', 'b'] }] })
		const item = ((await batch.json()) as { results: { status: string; details?: string }[] }).results[0]!
		expect(item.status).toBe('error')
		expect(item.details).toContain('a document belongs to exactly one container tag')
		await expectRuleRefused(
			await post('/v4/conversations', {
				conversationId: 'c1',
				messages: [{ role: 'user', content: 'hi' }],
				containerTags: ['a', 'b'],
			}),
		)
		const form = new FormData()
		form.set('file', new File(['plain text'], 'note.txt', { type: 'text/plain' }))
		form.set('containerTags', JSON.stringify(['a', 'b']))
		await expectRuleRefused(
			await fetch(`${baseUrl}/v3/documents/file`, {
				method: 'POST',
				headers: { authorization: `Bearer ${harness.t.key}` },
				body: form,
			}),
		)
		const listed = await harness.client.documents.list({ limit: 100 })
		expect(listed.memories).toEqual([])
	})

	it('accepts one tag however it is spelled', async () => {
		const repeated = await post('/v3/documents', { content: 'one tag twice', containerTags: ['a', 'a'] })
		expect(repeated.status).toBe(200)
		const both = await post('/v3/documents', {
			content: 'same tag both fields',
			containerTag: 'a',
			containerTags: ['a'],
		})
		expect(both.status).toBe(200)
		expect((await harness.client.documents.list({ containerTags: ['a'] })).pagination.totalItems).toBe(2)
	})

	it('gives a key restricted to one of the tags no way to file a document under the other', async () => {
		const restricted = (await harness.t.json('POST', '/v3/keys', { name: 'team a', containerTags: ['team_a'] })).body
			.key
		for (const containerTags of [
			['team_a', 'team_b'],
			['team_b', 'team_a'],
		]) {
			const answer = await harness.t.json(
				'POST',
				'/v3/documents',
				{ content: 'shared plan', containerTags },
				restricted,
			)
			expect(answer.status).toBe(400)
		}
		const answer = await harness.t.json(
			'POST',
			'/v3/documents',
			{ content: 'b only', containerTags: ['team_b'] },
			restricted,
		)
		expect(answer.status).toBe(403)
		expect((await harness.client.documents.list({ containerTags: ['team_b'] })).memories).toEqual([])
		expect((await harness.client.documents.list({ containerTags: ['team_a'] })).memories).toEqual([])
	})

	it("makes the Claude memory tool of @supermemory/tools fail at create with the rule, not later with 'File not found'", async () => {
		const tool = createClaudeMemoryTool(harness.t.key, { baseUrl, containerTags: ['user_1'] })
		const created = await tool.handleCommand({ command: 'create', path: '/memories/notes.md', file_text: 'hello' })
		expect(created.success).toBe(false)
		expect(created.error).toContain('a document belongs to exactly one container tag')
	})
})
