import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'bun:test'
import type { ExtractionInput, Logger, PluginContext } from '../../core/index.ts'
import { extractorLLM } from '../../plugins/extractor-llm/index.ts'
import { extractorRules } from '../../plugins/extractor-rules/index.ts'
import {
	type ChatCompletionRequest,
	scriptedChatCompletions,
	startOpenAIEmulator,
} from '../../testkit/emulators/openai.ts'

const emulator = startOpenAIEmulator({ apiKey: 'sk-test-llm' })
const scripted = scriptedChatCompletions()
emulator.setRoute('POST /v1/chat/completions', scripted.handler)
afterAll(() => emulator.close())

/** Records warnings, so tests can see that a fallback was logged. */
const warnings: { message: string; fields?: Record<string, unknown> }[] = []
const logger: Logger = {
	debug() {},
	info() {},
	warn(message, fields) {
		warnings.push({ message, fields })
	},
	error() {},
}
const ctx = { logger, env: {} } as unknown as PluginContext

const rules = extractorRules()
beforeAll(() => rules.init?.(ctx))
beforeEach(() => {
	emulator.reset()
	scripted.reset()
	warnings.length = 0
})

function llm(
	options: { maxCalls?: number; maxCharsPerCall?: number; maxRetries?: number; maxConcurrentRequests?: number } = {},
) {
	const extractor = extractorLLM({
		baseURL: emulator.url,
		apiKey: 'sk-test-llm',
		model: 'memory-model-1',
		fallback: rules,
		...options,
	})
	extractor.init?.(ctx)
	return extractor
}

const TURNS: [string, string][] = [
	['Caroline', 'Hey Mel! I adopted a puppy last week'],
	['Melanie', 'Wow, congrats! I moved to Seattle in March.'],
]

function chat(turns: [string, string][] = TURNS): ExtractionInput {
	const text = turns.map(([speaker, line]) => `${speaker}: ${line}`).join('\n')
	return {
		documentId: 'conversation-7',
		containerTag: 'test',
		text,
		turns: turns.map(([speaker, line], index) => ({ speaker, text: line, index })),
		date: '2023-05-08',
		entityContext: null,
		chunks: [
			{ position: 0, content: `${text.split('\n')[0]}` },
			{ position: 1, content: `${text.split('\n')[1]}` },
		],
	}
}

function memory(content: string, extra: Record<string, unknown> = {}) {
	return {
		content,
		isStatic: false,
		subject: null,
		attribute: null,
		value: null,
		eventDates: [],
		sources: [],
		derivedFrom: [],
		buckets: [],
		...extra,
	}
}

const PUPPY = memory('Caroline adopted a puppy in the week before 2023-05-08', {
	isStatic: true,
	subject: 'Caroline',
	attribute: 'pet:puppy',
	value: 'puppy',
	eventDates: ['2023-05-01'],
	sources: [0],
	buckets: ['pets'],
})

function promptOf(call: ChatCompletionRequest): string {
	return call.messages.map((message) => String(message.content)).join('\n')
}

describe('extractor-llm', () => {
	it('sends the base URL, model, key and a strict JSON schema to the endpoint', async () => {
		scripted.enqueue({ json: { memories: [] } })
		await llm().extract(chat())

		expect(emulator.requests).toHaveLength(1)
		const [request] = emulator.requests
		expect(request!.path).toBe('/v1/chat/completions')
		expect(request!.headers.authorization).toBe('Bearer sk-test-llm')
		const [call] = scripted.calls
		expect(call!.model).toBe('memory-model-1')
		expect(call!.response_format?.type).toBe('json_schema')
		expect(call!.response_format?.json_schema?.strict).toBe(true)
		expect(JSON.stringify(call!.response_format?.json_schema?.schema)).toContain('"memories"')
		const prompt = promptOf(call!)
		expect(prompt).toContain('2023-05-08')
		expect(prompt).toContain('[0] Caroline: Hey Mel! I adopted a puppy last week')
		expect(prompt).toContain('[1] Melanie: Wow, congrats! I moved to Seattle in March.')
	})

	it('turns valid structured output into candidates with sources, inferences and buckets', async () => {
		scripted.enqueue({
			json: {
				memories: [
					PUPPY,
					memory('Melanie moved to Seattle in March 2023', {
						isStatic: true,
						subject: 'Melanie',
						attribute: 'residence',
						value: 'Seattle',
						eventDates: ['2023-03-01', 'not a date'],
						sources: [1, 99],
						buckets: ['places', 'unknown-bucket'],
					}),
					memory('Caroline and Melanie are close friends', { isStatic: true, sources: [0, 1], derivedFrom: [0, 1] }),
				],
			},
		})
		const input = chat()
		input.buckets = [
			{ key: 'pets', description: 'Animals the people keep' },
			{ key: 'places', description: 'Where people live and travel' },
		]
		const candidates = await llm().extract(input)

		expect(promptOf(scripted.calls[0]!)).toContain('- pets: Animals the people keep')
		expect(candidates).toEqual([
			{
				content: 'Caroline adopted a puppy in the week before 2023-05-08',
				isStatic: true,
				subject: 'Caroline',
				attribute: 'pet:puppy',
				value: 'puppy',
				eventDates: ['2023-05-01'],
				sourcePositions: [0],
				sourceTurns: [0],
				buckets: ['pets'],
			},
			{
				content: 'Melanie moved to Seattle in March 2023',
				isStatic: true,
				subject: 'Melanie',
				attribute: 'residence',
				value: 'Seattle',
				eventDates: ['2023-03-01'],
				sourcePositions: [1],
				sourceTurns: [1],
				buckets: ['places'],
			},
			{
				content: 'Caroline and Melanie are close friends',
				isStatic: true,
				subject: null,
				attribute: null,
				value: null,
				eventDates: [],
				sourcePositions: [0, 1],
				sourceTurns: [0, 1],
				buckets: [],
				derivedFrom: [0, 1],
			},
		])
		expect(warnings).toEqual([])
	})

	it('accepts an empty list: nothing worth remembering is a valid answer', async () => {
		scripted.enqueue({ json: { memories: [] } })
		expect(await llm().extract(chat())).toEqual([])
		expect(warnings).toEqual([])
	})

	it('falls back to the rules extractor on malformed JSON, and logs it', async () => {
		scripted.enqueue({ text: '{"memories": [{"content": "Caroline adopted' })
		const candidates = await llm().extract(chat())

		expect(candidates).toEqual(await rules.extract(chat()))
		expect(candidates.map((candidate) => candidate.content)).toContain(
			'Caroline adopted a puppy in the week before 2023-05-08',
		)
		expect(scripted.calls).toHaveLength(1)
		expect(warnings).toHaveLength(1)
		expect(warnings[0]!.fields).toMatchObject({
			documentId: 'conversation-7',
			part: '1/1',
			fallback: 'extractor-rules',
		})
	})

	it('falls back to the rules extractor when the output breaks the schema', async () => {
		scripted.enqueue({ json: { memories: [{ content: 42, isStatic: 'yes' }] } })
		expect(await llm().extract(chat())).toEqual(await rules.extract(chat()))
		expect(warnings).toHaveLength(1)
		expect(String(warnings[0]!.fields?.error)).toContain('invalid structured output')
	})

	it('falls back when every listed memory is unusable', async () => {
		scripted.enqueue({ json: { memories: [memory('   ')] } })
		expect(await llm().extract(chat())).toEqual(await rules.extract(chat()))
		expect(warnings).toHaveLength(1)
	})

	it('retries a server error and uses the answer that follows', async () => {
		scripted.enqueue({ status: 500 }, { json: { memories: [PUPPY] } })
		const candidates = await llm({ maxRetries: 2 }).extract(chat())

		expect(scripted.calls).toHaveLength(2)
		expect(candidates.map((candidate) => candidate.content)).toEqual([
			'Caroline adopted a puppy in the week before 2023-05-08',
		])
		expect(warnings).toEqual([])
	})

	it('falls back after the retries of a failing request are used up', async () => {
		scripted.enqueue({ status: 500 }, { status: 503 }, { status: 500 })
		const candidates = await llm({ maxRetries: 2 }).extract(chat())

		expect(scripted.calls).toHaveLength(3)
		expect(candidates).toEqual(await rules.extract(chat()))
		expect(String(warnings[0]!.fields?.error)).toContain('gave up after 3 attempts')
	})

	it('splits a long input into at most maxCalls requests of whole turns', async () => {
		const longTurns: [string, string][] = Array.from({ length: 30 }, (_, index) => [
			index % 2 === 0 ? 'Caroline' : 'Melanie',
			`Turn ${index}: I went to the farmers market and bought ${index} apples for the pie contest at the school.`,
		])
		const scriptedAll = scriptedChatCompletions({ json: { memories: [] } })
		emulator.setRoute('POST /v1/chat/completions', scriptedAll.handler)
		try {
			await llm({ maxCalls: 3, maxCharsPerCall: 500 }).extract(chat(longTurns))
			expect(scriptedAll.calls).toHaveLength(3)
			const seen = scriptedAll.calls.flatMap((call) =>
				[...promptOf(call).matchAll(/^\[(\d+)\] /gm)].map((match) => Number(match[1])),
			)
			expect(seen.sort((a, b) => a - b)).toEqual(longTurns.map((_, index) => index))

			scriptedAll.reset()
			await llm({ maxCalls: 3 }).extract(chat(longTurns))
			expect(scriptedAll.calls).toHaveLength(1)
		} finally {
			emulator.setRoute('POST /v1/chat/completions', scripted.handler)
		}
	})

	it('keeps at most maxConcurrentRequests requests in flight across the documents it extracts at once', async () => {
		const answers = scriptedChatCompletions({ json: { memories: [] } })
		let inFlight = 0
		let most = 0
		emulator.setRoute('POST /v1/chat/completions', async (request) => {
			inFlight++
			most = Math.max(most, inFlight)
			await Bun.sleep(15)
			inFlight--
			return answers.handler(request)
		})
		try {
			const extractor = llm({ maxConcurrentRequests: 3 })
			// Six documents at once, as a dreaming batch extracts them: each is one request here.
			await Promise.all(Array.from({ length: 6 }, () => extractor.extract(chat())))
			expect(answers.calls).toHaveLength(6)
			expect(most).toBe(3)
			expect(warnings).toEqual([])
		} finally {
			emulator.setRoute('POST /v1/chat/completions', scripted.handler)
		}
	})

	it('falls back for the failed part only and renumbers inferences across parts', async () => {
		const turns: [string, string][] = [
			['Caroline', 'I adopted a puppy last week and named him Oscar after my grandfather.'],
			['Melanie', 'I moved to Seattle in March because my husband got a new job there.'],
		]
		const SEATTLE = memory('Melanie moved to Seattle in March 2023', { subject: 'Melanie', sources: [1] })
		const answer = (call: ChatCompletionRequest) =>
			promptOf(call).includes('[0] Caroline')
				? { text: 'Sorry, I cannot answer in JSON.' }
				: {
						json: {
							memories: [SEATTLE, memory("Melanie's husband works in Seattle", { sources: [1], derivedFrom: [0] })],
						},
					}
		scripted.enqueue(answer, answer)
		const candidates = await llm({ maxCalls: 2, maxCharsPerCall: 60 }).extract(chat(turns))

		expect(scripted.calls).toHaveLength(2)
		const carolineOnly = await rules.extract({
			...chat(turns),
			turns: [{ speaker: 'Caroline', text: turns[0]![1], index: 0 }],
		})
		expect(carolineOnly.length).toBeGreaterThan(0)
		expect(candidates.map((candidate) => candidate.content)).toEqual([
			...carolineOnly.map((candidate) => candidate.content),
			'Melanie moved to Seattle in March 2023',
			"Melanie's husband works in Seattle",
		])
		expect(candidates.at(-1)!.derivedFrom).toEqual([carolineOnly.length])
		expect(candidates.slice(0, carolineOnly.length).every((candidate) => candidate.sourceTurns.join() === '0')).toBe(
			true,
		)
		expect(warnings.map((warning) => warning.fields?.part)).toEqual(['1/2'])
	})

	it('cites chunk positions for documents', async () => {
		scripted.enqueue({ json: { memories: [memory('Alex lives in Boston', { subject: 'Alex', sources: [3, 7] })] } })
		const input: ExtractionInput = {
			documentId: 'notes',
			containerTag: 'test',
			text: 'Alex lives in Boston.',
			turns: null,
			date: null,
			entityContext: 'The user is Alex',
			chunks: [{ position: 3, content: 'Alex lives in Boston.' }],
		}
		const [candidate] = await llm().extract(input)

		expect([candidate!.sourcePositions, candidate!.sourceTurns]).toEqual([[3], []])
		const prompt = promptOf(scripted.calls[0]!)
		expect(prompt).toContain('About: The user is Alex')
		expect(prompt).toContain('[3]\nAlex lives in Boston.')
	})

	it('refuses a bad configuration', async () => {
		expect(() => extractorLLM({ fallback: rules, maxCalls: 0 })).toThrow('maxCalls')
		expect(() => extractorLLM({ fallback: rules, maxConcurrentRequests: 0 })).toThrow('maxConcurrentRequests')
		const withoutKey = extractorLLM({ fallback: rules })
		await expect(Promise.resolve(withoutKey.init?.(ctx))).rejects.toThrow('API key')
	})
})
