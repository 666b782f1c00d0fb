import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { renderMessages } from '../../core/memory/messages.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { recordingExtractor } from '../../testkit/test-extractor.ts'

describe('conversation rendering', () => {
	it('writes one speaker line per message, with names, image parts and safe continuation lines', () => {
		expect(
			renderMessages([
				{ role: 'system', content: 'Be brief.' },
				{ role: 'user', name: 'Alex', content: 'I live in Boston.\nNote: it is cold.' },
				{
					role: 'assistant',
					content: [
						{ type: 'text', text: 'Nice city.' },
						{ type: 'image_url', imageUrl: { url: 'https://example.test/b.png' } },
					],
				},
				{ role: 'tool', name: 'weather_api', content: '' },
			]),
		).toBe(
			[
				'system: Be brief.',
				'Alex: I live in Boston. Note: it is cold.',
				'assistant: Nice city.\n[image: https://example.test/b.png]',
				'tool:',
			].join('\n'),
		)
	})
})

describeEachDriver('conversations (v4)', (driver) => {
	let t: TestService
	const extractor = recordingExtractor()
	beforeAll(async () => {
		t = await startTestService(driver, { extractor })
	}, 60_000)
	afterAll(() => t.stop())

	const send = (conversationId: string, messages: unknown[], extra: Record<string, unknown> = {}) =>
		t.json('POST', '/v4/conversations', {
			conversationId,
			messages,
			containerTags: ['conv_user'],
			dreaming: 'instant',
			...extra,
		})
	const entries = async (containerTag = 'conv_user') =>
		(await t.json('POST', '/v4/memories/list', { containerTags: [containerTag], limit: 100 })).body.memoryEntries

	it('stores the whole session as one document under the conversation id, answering exactly 200', async () => {
		const response = await send(
			'chat-1',
			[
				{ role: 'user', content: 'I live in Boston.' },
				{ role: 'assistant', content: 'Boston is lovely.' },
			],
			{ metadata: { channel: 'web', turns: 2, pinned: false } },
		)
		expect(response.status).toBe(200)
		expect(response.body).toEqual({ id: expect.any(String), status: 'queued' })
		const document = await t.waitForStatus(response.body.id)
		expect(document).toMatchObject({
			customId: 'chat-1',
			containerTag: 'conv_user',
			source: 'conversation',
			content: 'user: I live in Boston.\nassistant: Boston is lovely.',
			metadata: { channel: 'web', turns: 2, pinned: false },
		})
		expect(document.memories.map((m: { memory: string }) => m.memory)).toContain('User lives in Boston.')
	})

	it('extracts only the new turns of a re-sent conversation and links them to the earlier memories', async () => {
		const first = [
			{ role: 'user', content: 'I live in Boston.' },
			{ role: 'assistant', content: 'Boston is lovely.' },
		]
		const sent = await send('chat-2', first, { containerTags: ['conv_2'] })
		await t.waitForStatus(sent.body.id)
		const before = await entries('conv_2')
		const boston = before.find((e: { memory: string }) => e.memory === 'User lives in Boston.')
		const calls = extractor.inputs.length

		const again = await send(
			'chat-2',
			[...first, { role: 'user', content: 'I moved to Seattle.' }, { role: 'assistant', content: 'Exciting!' }],
			{ containerTags: ['conv_2'] },
		)
		expect(again.body.id).toBe(sent.body.id)
		const document = await t.waitForStatus(sent.body.id)
		const input = extractor.inputs.slice(calls).find((i) => i.documentId === sent.body.id)!
		expect(input.turns?.map((turn) => turn.index)).toEqual([2, 3])
		expect(input.text).toBe('user: I moved to Seattle.\nassistant: Exciting!')
		const after = await entries('conv_2')
		const seattle = after.find((e: { memory: string }) => e.memory === 'User moved to Seattle.')
		expect(seattle).toMatchObject({
			version: 2,
			parentMemoryId: boston.id,
			memoryRelations: { [boston.id]: 'updates' },
		})
		// The earlier memories keep their ids; the document lists every memory formed from it.
		expect(after.find((e: { memory: string }) => e.memory === 'Boston is lovely.').id).toBe(
			before.find((e: { memory: string }) => e.memory === 'Boston is lovely.').id,
		)
		expect(document.memories.map((m: { id: string }) => m.id)).toContain(boston.id)

		// The same conversation again changes nothing.
		const unchanged = await send(
			'chat-2',
			[...first, { role: 'user', content: 'I moved to Seattle.' }, { role: 'assistant', content: 'Exciting!' }],
			{ containerTags: ['conv_2'] },
		)
		expect(unchanged.body.status).toBe('done')
	})

	it('extracts the whole conversation again when an earlier turn changed', async () => {
		const sent = await send('chat-3', [
			{ role: 'user', content: 'I work as a baker.' },
			{ role: 'assistant', content: 'Fun!' },
		])
		await t.waitForStatus(sent.body.id)
		const calls = extractor.inputs.length
		await send('chat-3', [
			{ role: 'user', content: 'I work as a chef.' },
			{ role: 'assistant', content: 'Fun!' },
			{ role: 'user', content: 'I live in Paris.' },
		])
		await t.waitForStatus(sent.body.id)
		const input = extractor.inputs.slice(calls).find((i) => i.documentId === sent.body.id)!
		expect(input.turns?.map((turn) => turn.index)).toEqual([0, 1, 2])
		const document = await t.json('GET', `/v3/documents/${sent.body.id}`)
		expect(document.body.memories.map((m: { memory: string }) => m.memory).sort()).toEqual([
			'Fun!',
			'User lives in Paris.',
			'User works as a chef.',
		])
	})

	it('forms the same memories from a POST /v3/documents of "role: text" lines', async () => {
		const messages = [
			{ role: 'user', content: 'I live in Oslo.' },
			{ role: 'assistant', content: 'Cold but beautiful.' },
		]
		const viaConversation = await send('chat-4', messages, { containerTags: ['conv_a'] })
		const viaDocument = await t.json('POST', '/v3/documents', {
			content: 'user: I live in Oslo.\nassistant: Cold but beautiful.',
			containerTag: 'conv_b',
			customId: 'chat-4',
			dreaming: 'instant',
		})
		await t.waitForStatus(viaConversation.body.id)
		await t.waitForStatus(viaDocument.body.id)
		const memories = async (tag: string) => (await entries(tag)).map((e: { memory: string }) => e.memory).sort()
		expect(await memories('conv_a')).toEqual(await memories('conv_b'))
		expect(await memories('conv_a')).toContain('User lives in Oslo.')
	})

	it('takes a single message and named speakers', async () => {
		const sent = await send('chat-5', [{ role: 'user', name: 'Priya', content: 'I live in Pune.' }], {
			containerTags: ['conv_5'],
		})
		await t.waitForStatus(sent.body.id)
		expect((await entries('conv_5')).map((e: { memory: string }) => e.memory)).toEqual(['Priya lives in Pune.'])
	})

	it('uses dynamic dreaming unless told otherwise', async () => {
		const response = await t.json('POST', '/v4/conversations', {
			conversationId: 'chat-6',
			messages: [{ role: 'user', content: 'I live in Lima.' }],
		})
		const document = await t.waitForStatus(response.body.id)
		expect(document).toMatchObject({ dreaming: 'dynamic', containerTag: 'sm_project_default' })
	})

	it('refuses bad conversations with a 400 naming the field', async () => {
		const cases: [unknown, string][] = [
			[{ messages: [{ role: 'user', content: 'x' }] }, 'conversationId'],
			[{ conversationId: '', messages: [{ role: 'user', content: 'x' }] }, 'conversationId'],
			[{ conversationId: 'c', messages: [] }, 'messages'],
			[{ conversationId: 'c', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
			[{ conversationId: 'c', messages: [{ role: 'user', content: [{ type: 'video' }] }] }, 'messages[0].content'],
			[{ conversationId: 'c', messages: [{ role: 'user', content: 'x' }], metadata: { a: ['x'] } }, 'metadata'],
			[{ conversationId: 'x'.repeat(256), messages: [{ role: 'user', content: 'x' }] }, 'conversationId'],
		]
		for (const [body, field] of cases) {
			const response = await t.json('POST', '/v4/conversations', body)
			expect(response.status).toBe(400)
			expect(response.body.details).toContain(field)
		}
	})
})
