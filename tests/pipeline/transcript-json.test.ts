import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { looksLikeMarkup } from '../../core/memory/markup.ts'
import { embeddedChat, renderEmbeddedChat } from '../../core/pipeline/extract/chat-messages.ts'
import { structuredToText } from '../../core/pipeline/extract/structured.ts'
import { parseTranscript } from '../../core/pipeline/transcript.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const PREAMBLE = 'Here is the date the following session took place: 1:56 pm on 8 May, 2023'

/** A session as a third-party benchmark client sends it: a date preamble, then the messages as JSON. */
function session(date: string, messages: { speaker: string; content: string }[]): string {
	const json = messages.map((m, i) => ({
		role: i % 2 === 0 ? 'user' : 'assistant',
		content: m.content,
		speaker: m.speaker,
	}))
	return `Here is the date the following session took place: ${date}\n${JSON.stringify(json)}`
}

describe('chat sent as JSON (chat-messages)', () => {
	it('reads a JSON array of messages after a date preamble as a dated transcript', () => {
		const text = session('1:56 pm on 8 May, 2023', [
			{ speaker: 'Caroline', content: 'I went to a support group yesterday.' },
			{ speaker: 'Melanie', content: 'Wow, Mel here:\nthat is awesome!' },
			{ speaker: 'Caroline', content: 'Thanks!' },
		])
		const chat = embeddedChat(text)
		expect(chat).not.toBeNull()
		expect(chat!.preamble).toBe(PREAMBLE)
		const rendered = renderEmbeddedChat(chat!)
		expect(rendered).toBe(
			'[date: 1:56 pm on 8 May, 2023]\nCaroline: I went to a support group yesterday.\nMelanie: Wow, Mel here: that is awesome!\nCaroline: Thanks!',
		)
		const transcript = parseTranscript(rendered)
		expect(transcript?.preamble).toBe('[date: 1:56 pm on 8 May, 2023]')
		expect(transcript?.turns.map((turn) => turn.speaker)).toEqual(['Caroline', 'Melanie', 'Caroline'])
	})

	it('reads a two-message session between named speakers as a transcript', () => {
		const chat = embeddedChat(
			session('2:10 pm on 12 May, 2023', [
				{ speaker: 'Caroline', content: 'I adopted a puppy named Biscuit last week.' },
				{ speaker: 'Melanie', content: 'Oh wow, congratulations on Biscuit!' },
			]),
		)
		const transcript = parseTranscript(renderEmbeddedChat(chat!))
		expect(transcript?.turns.map((turn) => turn.speaker)).toEqual(['Caroline', 'Melanie'])
	})

	it('reads the common shapes: a bare array, {messages}, OpenAI role/content with parts, speaker or name', () => {
		const openai = {
			messages: [
				{ role: 'system', content: 'Be brief.' },
				{ role: 'user', content: [{ type: 'text', text: 'I moved to Lisbon.' }] },
				{ role: 'assistant', content: 'Noted.' },
			],
		}
		expect(structuredToText(openai)).toBe('system: Be brief.\nuser: I moved to Lisbon.\nassistant: Noted.')
		const named = [
			{ role: 'user', name: 'alice', content: 'I adopted a cat.' },
			{ role: 'assistant', content: 'What is its name?' },
		]
		expect(structuredToText(named)).toBe('Alice: I adopted a cat.\nassistant: What is its name?')
		expect(renderEmbeddedChat(embeddedChat(`Chat log:\n${JSON.stringify(openai)}`)!)).toBe(
			'Chat log:\nsystem: Be brief.\nuser: I moved to Lisbon.\nassistant: Noted.',
		)
		const bySpeaker = [
			{ speaker: 'Jon', text: 'Hi Gina.' },
			{ speaker: 'Gina', text: 'Hi Jon!' },
		]
		expect(embeddedChat(`Session 3: ${JSON.stringify(bySpeaker)}`)?.lines).toEqual([
			{ speaker: 'Jon', text: 'Hi Gina.' },
			{ speaker: 'Gina', text: 'Hi Jon!' },
		])
	})

	it('leaves other JSON in text, and text without JSON, alone', () => {
		expect(embeddedChat('Scores: [1, 2, 3]')).toBeNull()
		expect(embeddedChat('Config follows\n{"port": 8080}')).toBeNull()
		expect(embeddedChat('Alex lives in Boston.')).toBeNull()
		expect(embeddedChat('Broken: [{"speaker": "A", "content": "x"')).toBeNull()
	})

	it('tells markup from statements', () => {
		expect(looksLikeMarkup('"speaker":"Melanie"},{"role":"user","content":"Wow, Mel, that\'s awesome')).toBe(true)
		expect(looksLikeMarkup('<div class="x">Hello</div>')).toBe(true)
		expect(looksLikeMarkup('Melanie said "that is awesome" about the painting')).toBe(false)
		expect(looksLikeMarkup('Caroline went to an LGBTQ support group on 2023-05-07')).toBe(false)
	})
})

describeEachDriver('chat sessions sent as JSON inside text', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver)
	}, 180_000)
	afterAll(() => t?.stop())

	it('forms speaker-labelled, dated memories, none from markup or from the preamble repeated by every session', async () => {
		const tag = 'json_sessions'
		const days = ['8 May, 2023', '25 May, 2023', '9 June, 2023', '27 June, 2023', '3 July, 2023']
		const ids: string[] = []
		for (const [i, day] of days.entries()) {
			const content = session(`1:56 pm on ${day}`, [
				{ speaker: 'Caroline', content: `I went to pottery class number ${i + 1} yesterday and loved it.` },
				{ speaker: 'Melanie', content: `That's awesome! I painted a sunset with my kids ${i + 1} times this week.` },
				{ speaker: 'Caroline', content: 'My dream is to adopt children and give them a loving home.' },
			])
			const { body } = await t.json('POST', '/v3/documents', { content, containerTag: tag, dreaming: 'instant' })
			ids.push(body.id)
		}
		for (const id of ids) expect((await t.waitForStatus(id, ['done', 'failed'], undefined, 60_000)).status).toBe('done')

		const chunks = await t.json('GET', `/v3/documents/${ids[0]}/chunks`)
		const text = (chunks.body.chunks as { content: string }[]).map((chunk) => chunk.content).join('\n')
		expect(text).toContain('Caroline: I went to pottery class number 1 yesterday')
		expect(text).not.toContain('"speaker"')

		const listed = await t.json('POST', '/v4/memories/list', { containerTags: [tag], limit: 100 })
		const memories = (listed.body.memoryEntries as { memory: string }[]).map((m) => m.memory)
		expect(memories.length).toBeGreaterThan(days.length)
		for (const memory of memories) {
			expect(looksLikeMarkup(memory)).toBe(false)
			expect(memory).not.toContain('session took place')
			expect(memory).not.toMatch(/"(?:role|speaker|content)"/)
		}
		expect(memories.some((m) => m.startsWith('Caroline') && m.includes('pottery class number 1'))).toBe(true)
		expect(memories.some((m) => m.startsWith('Melanie') && m.includes('sunset'))).toBe(true)
		// "yesterday" resolves against each session's own date from the preamble.
		expect(memories.some((m) => m.includes('pottery class number 1') && m.includes('2023-05-07'))).toBe(true)
		expect(memories.some((m) => m.includes('pottery class number 3') && m.includes('2023-06-08'))).toBe(true)
	}, 120_000)
})
