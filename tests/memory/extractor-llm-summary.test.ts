import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'bun:test'
import { createLogger, type PluginContext, SUMMARY_MAX } from '../../core/index.ts'
import { extractorLLM } from '../../plugins/extractor-llm/index.ts'
import { extractorRules } from '../../plugins/extractor-rules/index.ts'
import { scriptedChatCompletions, startOpenAIEmulator } from '../../testkit/emulators/openai.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const emulator = startOpenAIEmulator({ apiKey: 'sk-test-summary' })
const scripted = scriptedChatCompletions()
emulator.setRoute('POST /v1/chat/completions', scripted.handler)
afterAll(() => emulator.close())
beforeEach(() => scripted.reset())

const ctx = { logger: createLogger('silent'), env: {} } as unknown as PluginContext
const rules = extractorRules()
beforeAll(() => rules.init?.(ctx))

function llm() {
	const extractor = extractorLLM({ baseURL: emulator.url, apiKey: 'sk-test-summary', model: 'm', fallback: rules })
	extractor.init?.(ctx)
	return extractor
}

const NOTE = 'The billing service moved to PostgreSQL 17 in March. Invoices are now generated nightly at 02:00 UTC.'

describe('extractor-llm summaries', () => {
	it('asks the model for a summary and gives its answer on one line, cut to SUMMARY_MAX at a sentence', async () => {
		const extractor = llm()
		scripted.enqueue({ text: '  Billing moved to PostgreSQL 17;\n invoices run nightly. ' })
		expect(await extractor.summarize!({ text: NOTE, title: 'Billing' })).toBe(
			'Billing moved to PostgreSQL 17; invoices run nightly.',
		)
		expect(scripted.calls[0]!.messages.at(-1)).toMatchObject({ content: `Title: Billing\n\n${NOTE}` })
		const long = `${'A sentence of the summary. '.repeat(15)}`
		scripted.enqueue({ text: long })
		const cut = await extractor.summarize!({ text: NOTE, title: null })
		expect(cut!.length).toBeLessThanOrEqual(SUMMARY_MAX)
		expect(cut!.endsWith('summary.')).toBe(true)
	})

	it('gives null when the model fails, so the offline summary stands in', async () => {
		scripted.enqueue({ status: 400, message: 'bad' })
		expect(await llm().summarize!({ text: NOTE, title: null })).toBeNull()
	})
})

describe('a document processed with the LLM extractor configured', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: llm() })
	}, 60_000)
	afterAll(() => t.stop())

	it("gets the model's summary; the offline one when the model fails", async () => {
		scripted.enqueue(({ messages }) =>
			String(messages[0]?.content).startsWith('Summarize')
				? { text: 'Billing moved to PostgreSQL 17.' }
				: { json: { memories: [] } },
		)
		const added = await t.json('POST', '/v3/documents', {
			content: NOTE,
			containerTag: 'billing',
			taskType: 'superrag',
		})
		expect((await t.waitForStatus(added.body.id, ['done'])).summary).toBe('Billing moved to PostgreSQL 17.')

		scripted.enqueue({ status: 400, message: 'bad' })
		const second = await t.json('POST', '/v3/documents', {
			content: 'Refunds are approved by the finance lead.',
			containerTag: 'billing',
			taskType: 'superrag',
		})
		expect((await t.waitForStatus(second.body.id, ['done'])).summary).toBe('Refunds are approved by the finance lead.')
	})
})
