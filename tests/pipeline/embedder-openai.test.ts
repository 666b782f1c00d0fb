import { afterAll, beforeEach, describe, expect, it } from 'bun:test'
import { createLogger, type PluginContext } from '../../core/index.ts'
import { embedderOpenAI } from '../../plugins/embedder-openai/index.ts'
import { bagOfWordsVector, startOpenAIEmulator } from '../../testkit/emulators/openai.ts'

const emulator = startOpenAIEmulator()
const wrongSizeEmulator = startOpenAIEmulator({ defaultEmbeddingDimensions: 768 })
const keylessEmulator = startOpenAIEmulator({ apiKey: null, embeddingScale: 3 })
afterAll(() => Promise.all([emulator.close(), wrongSizeEmulator.close(), keylessEmulator.close()]))
beforeEach(() => emulator.reset())

const ctx = { logger: createLogger('silent'), env: {} } as unknown as PluginContext

function length(vector: Float32Array): number {
	return Math.hypot(...vector)
}

interface EmbeddingsBody {
	model: string
	input: string[]
	dimensions?: number
	encoding_format?: string
}

describe('embedder-openai', () => {
	it('sends the configured model and dimensions and returns vectors of that size', async () => {
		const embedder = embedderOpenAI({
			baseURL: emulator.url,
			apiKey: emulator.apiKey!,
			model: 'text-embedding-3-large',
			dimensions: 256,
		})
		await embedder.init?.(ctx)
		const vectors = await embedder.embed(['I adopted a puppy', 'we got a new dog'], 'document')

		expect(embedder.space).toEqual({ id: 'openai:text-embedding-3-large:256', dimensions: 256 })
		expect(emulator.requests).toHaveLength(1)
		const body = emulator.requests[0]!.body as EmbeddingsBody
		expect(body.model).toBe('text-embedding-3-large')
		expect(body.dimensions).toBe(256)
		expect(body.input).toEqual(['I adopted a puppy', 'we got a new dog'])
		expect(vectors.map((vector) => vector.length)).toEqual([256, 256])
	})

	it('defaults to text-embedding-3-small at 1536 dimensions without sending a dimensions parameter', async () => {
		const embedder = embedderOpenAI({ baseURL: emulator.url, apiKey: emulator.apiKey! })
		const [vector] = await embedder.embed(['hello'], 'query')

		expect(embedder.space).toEqual({ id: 'openai:text-embedding-3-small:1536', dimensions: 1536 })
		const body = emulator.requests[0]!.body as EmbeddingsBody
		expect(body.model).toBe('text-embedding-3-small')
		expect('dimensions' in body).toBe(false)
		expect(vector!.length).toBe(1536)
	})

	it('sends the API key as a bearer token', async () => {
		const embedder = embedderOpenAI({ baseURL: emulator.url, apiKey: emulator.apiKey!, dimensions: 8 })
		await embedder.embed(['hello'], 'document')

		expect(emulator.requests[0]!.headers.authorization).toBe(`Bearer ${emulator.apiKey}`)
		expect(emulator.requests[0]!.path).toBe('/v1/embeddings')
	})

	it('fails at once, naming the endpoint and model, when the key is rejected', async () => {
		const embedder = embedderOpenAI({ baseURL: emulator.url, apiKey: 'sk-wrong', model: 'my-model', dimensions: 8 })
		const failure = embedder.embed(['hello'], 'document')

		await expect(failure).rejects.toThrow(`${emulator.url} (model "my-model")`)
		await expect(failure).rejects.toThrow('HTTP 401: Incorrect API key provided.')
		expect(emulator.requests).toHaveLength(1)
	})

	it('splits large inputs into batches of 256 and keeps the order of the texts', async () => {
		const embedder = embedderOpenAI({ baseURL: emulator.url, apiKey: emulator.apiKey!, dimensions: 16 })
		const texts = Array.from({ length: 600 }, (_, i) => `note number ${i} about topic ${i % 13}`)
		const vectors = await embedder.embed(texts, 'document')

		const batches = emulator.requests.map((request) => (request.body as EmbeddingsBody).input)
		expect(batches.map((batch) => batch.length)).toEqual([256, 256, 88])
		expect(batches.flat()).toEqual(texts)
		expect(vectors).toHaveLength(600)
		for (const i of [0, 255, 256, 511, 512, 599]) {
			const expected = bagOfWordsVector(texts[i]!.toLowerCase().match(/[\p{L}\p{N}]+/gu)!, 16)
			expect(Array.from(vectors[i]!)).toEqual(Array.from(expected))
		}
	})

	it('retries a server error and then succeeds', async () => {
		const embedder = embedderOpenAI({ baseURL: emulator.url, apiKey: emulator.apiKey!, dimensions: 8 })
		emulator.failNext(1, 500)
		const vectors = await embedder.embed(['hello'], 'document')

		expect(vectors).toHaveLength(1)
		expect(emulator.requests).toHaveLength(2)
	})

	it('gives up after the SDK retries with an error naming the endpoint, the model and the status', async () => {
		const embedder = embedderOpenAI({ baseURL: emulator.url, apiKey: emulator.apiKey!, dimensions: 8 })
		emulator.failNext(3, 503, { message: 'upstream overloaded' })
		const failure = embedder.embed(['hello'], 'document')

		await expect(failure).rejects.toThrow(
			`embedder-openai: embedding request to ${emulator.url} (model "text-embedding-3-small") failed: ` +
				'HTTP 503: upstream overloaded (gave up after 3 attempts)',
		)
		expect(emulator.requests).toHaveLength(3)
	})

	it('detects vectors of the wrong size', async () => {
		const embedder = embedderOpenAI({
			baseURL: wrongSizeEmulator.url,
			apiKey: wrongSizeEmulator.apiKey!,
			model: 'nomic',
		})

		await expect(embedder.embed(['hello'], 'document')).rejects.toThrow(
			`embedder-openai: ${wrongSizeEmulator.url} (model "nomic") returned 768-dimensional vectors, expected 1536`,
		)
	})

	it('normalizes vectors to unit length and works without a key against a local server', async () => {
		const embedder = embedderOpenAI({ baseURL: keylessEmulator.url, dimensions: 32 })
		await embedder.init?.(ctx)
		const vectors = await embedder.embed(['one text', 'another text'], 'document')

		for (const vector of vectors) expect(length(vector)).toBeCloseTo(1, 5)
		expect(keylessEmulator.requests.at(-1)!.headers.authorization).toBe('Bearer no-key')
	})

	it('refuses to start against OpenAI itself without a key', () => {
		expect(() => embedderOpenAI({}).init?.(ctx)).toThrow('an API key is required for https://api.openai.com/v1')
	})

	it('makes no request for an empty list', async () => {
		const embedder = embedderOpenAI({ baseURL: emulator.url, apiKey: emulator.apiKey!, dimensions: 8 })

		expect(await embedder.embed([], 'document')).toEqual([])
		expect(emulator.requests).toHaveLength(0)
	})
})

interface EmulatorAnswer {
	object?: string
	model?: string
	data: { object: string; index: number; embedding: number[] | string }[]
	error?: { type: string; code: string | null }
}

describe('openai emulator', () => {
	async function post(body: unknown, key = emulator.apiKey) {
		const response = await fetch(`${emulator.url}/embeddings`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		})
		return { status: response.status, body: (await response.json()) as EmulatorAnswer }
	}

	it('answers base64 embeddings with the same vectors as float ones', async () => {
		const floats = await post({ model: 'm', input: 'same words', dimensions: 8 })
		const base64 = await post({ model: 'm', input: ['same words'], dimensions: 8, encoding_format: 'base64' })

		const bytes = Buffer.from(base64.body.data[0]!.embedding as string, 'base64')
		const decoded = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
		expect(Array.from(decoded)).toEqual(floats.body.data[0]!.embedding as number[])
		expect(base64.body).toMatchObject({ object: 'list', model: 'm', data: [{ object: 'embedding', index: 0 }] })
	})

	it('gives texts that share words more similar vectors than texts that do not', async () => {
		const { body } = await post({ model: 'm', input: ['red apple pie', 'red apple tart', 'tax report due'] })
		const [a, b, c] = body.data.map((item) => item.embedding as number[])
		const dot = (x: number[], y: number[]) => x.reduce((sum, value, i) => sum + value * y[i]!, 0)

		expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!))
	})

	it('rejects a wrong key with an OpenAI-shaped 401', async () => {
		const { status, body } = await post({ model: 'm', input: 'x' }, 'sk-other')

		expect(status).toBe(401)
		expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' })
	})

	it('routes added later are served and recorded', async () => {
		emulator.setRoute('POST /v1/chat/completions', () => ({ body: { object: 'chat.completion', choices: [] } }))
		const { status, body } = await post({ model: 'm', input: 'x' })
		const chat = await fetch(`${emulator.url}/chat/completions`, {
			method: 'POST',
			headers: { authorization: `Bearer ${emulator.apiKey}` },
			body: '{}',
		})

		expect(status).toBe(200)
		expect(body.data).toHaveLength(1)
		expect(await chat.json()).toEqual({ object: 'chat.completion', choices: [] })
		expect(emulator.requests.map((request) => request.path)).toEqual(['/v1/embeddings', '/v1/chat/completions'])
	})
})
