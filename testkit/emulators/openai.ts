import { type FaultLayer, faultLayer } from './faults.ts'

/**
 * A local HTTP server speaking the OpenAI REST protocol, for tests that point real SDK clients at it.
 *
 * Routes live in a table keyed by `METHOD /path`; `POST /v1/embeddings` is built in, and later tests add their own
 * (for example `POST /v1/chat/completions`) with `options.routes` or `emulator.setRoute`. Every request is recorded,
 * including the ones answered with an error.
 */

export interface RecordedRequest {
	method: string
	path: string
	/** Header names in lower case. */
	headers: Record<string, string>
	/** The parsed JSON body, the raw text when it is not JSON, or null when empty. */
	body: unknown
}

export interface EmulatorResponse {
	status?: number
	headers?: Record<string, string>
	body: unknown
}

export type RouteHandler = (request: RecordedRequest) => EmulatorResponse | Promise<EmulatorResponse>

export interface OpenAIEmulatorOptions {
	/** The key clients must send as `Authorization: Bearer <key>`; null accepts any request. Default `sk-emulator`. */
	apiKey?: string | null
	/** Vector size when a request has no `dimensions` (OpenAI's text-embedding-3-small: 1536). */
	defaultEmbeddingDimensions?: number
	/** Multiplies every embedding, to imitate servers that do not return unit vectors. Default 1. */
	embeddingScale?: number
	/** Extra routes, or replacements for built-in ones, keyed `METHOD /path`. */
	routes?: Record<string, RouteHandler>
}

export interface FailureOptions {
	message?: string
	/** Sent as `retry-after-ms` so SDK retries do not wait out their default back-off; null omits it. Default 1. */
	retryAfterMs?: number | null
}

export interface OpenAIEmulator {
	/** The shared fault layer (testkit/emulators/faults.ts). */
	faults: FaultLayer
	/** Base URL including `/v1`, as OpenAI clients expect. */
	url: string
	apiKey: string | null
	requests: RecordedRequest[]
	/** The next `count` requests (any route) fail with `status` and an OpenAI-shaped error body. */
	failNext(count: number, status?: number, options?: FailureOptions): void
	setRoute(key: string, handler: RouteHandler): void
	/** Forgets recorded requests and pending failures, for a clean start in each test. */
	reset(): void
	close(): Promise<void>
}

export function startOpenAIEmulator(options: OpenAIEmulatorOptions = {}): OpenAIEmulator {
	const apiKey = options.apiKey === undefined ? 'sk-emulator' : options.apiKey
	const routes = new Map<string, RouteHandler>([
		['POST /v1/embeddings', embeddingsRoute(options.defaultEmbeddingDimensions ?? 1536, options.embeddingScale ?? 1)],
		...Object.entries(options.routes ?? {}),
	])
	const failures: { status: number; options: FailureOptions }[] = []
	const requests: RecordedRequest[] = []

	const faults = faultLayer('openai')
	const server = Bun.serve({
		port: 0,
		hostname: '127.0.0.1',
		async fetch(raw) {
			const fault = await faults.before(raw)
			if (fault) return fault
			const request = await record(raw)
			requests.push(request)
			const failure = failures.shift()
			if (failure) return failureResponse(failure.status, failure.options)
			if (apiKey !== null && request.headers.authorization !== `Bearer ${apiKey}`) {
				return json(401, openAIError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'))
			}
			const handler = routes.get(`${request.method} ${request.path}`)
			if (!handler) {
				return json(404, openAIError(`Unknown request URL: ${request.method} ${request.path}`, 'invalid_request_error'))
			}
			const response = await handler(request)
			return json(response.status ?? 200, response.body, response.headers)
		},
	})

	return {
		faults,
		url: `http://127.0.0.1:${server.port}/v1`,
		apiKey,
		requests,
		failNext(count, status = 500, failureOptions = {}) {
			for (let i = 0; i < count; i++) failures.push({ status, options: failureOptions })
		},
		setRoute(key, handler) {
			routes.set(key, handler)
		},
		reset() {
			requests.length = 0
			failures.length = 0
		},
		async close() {
			await server.stop(true)
		},
	}
}

async function record(raw: Request): Promise<RecordedRequest> {
	const text = await raw.text()
	let body: unknown = text === '' ? null : text
	try {
		if (text !== '') body = JSON.parse(text)
	} catch {}
	return {
		method: raw.method,
		path: new URL(raw.url).pathname,
		headers: Object.fromEntries(raw.headers.entries()),
		body,
	}
}

export function openAIError(message: string, type: string, code: string | null = null) {
	return { error: { message, type, param: null, code } }
}

export function badRequest(message: string, param: string | null = null): EmulatorResponse {
	return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code: null } } }
}

function failureResponse(status: number, options: FailureOptions): Response {
	const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error'
	const retryAfterMs = options.retryAfterMs === undefined ? 1 : options.retryAfterMs
	const headers: Record<string, string> = retryAfterMs === null ? {} : { 'retry-after-ms': String(retryAfterMs) }
	return json(status, openAIError(options.message ?? `Emulated failure (HTTP ${status})`, type), headers)
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
	return Response.json(body, { status, headers })
}

/** `POST /v1/embeddings`: deterministic hashed bag-of-words vectors, so texts sharing words are similar. */
function embeddingsRoute(defaultDimensions: number, scale: number): RouteHandler {
	return (request) => {
		const body = request.body as { input?: unknown; model?: unknown; dimensions?: unknown; encoding_format?: unknown }
		if (!body || typeof body !== 'object') return badRequest('The request body must be a JSON object.')
		if (typeof body.model !== 'string' || body.model === '')
			return badRequest('You must provide a model parameter.', 'model')
		const inputs = typeof body.input === 'string' ? [body.input] : body.input
		if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((item) => typeof item === 'string')) {
			return badRequest("'input' must be a string or a non-empty array of strings.", 'input')
		}
		const dimensions = body.dimensions ?? defaultDimensions
		if (!Number.isInteger(dimensions) || (dimensions as number) < 1) {
			return badRequest("'dimensions' must be a positive integer.", 'dimensions')
		}
		const format = body.encoding_format ?? 'float'
		if (format !== 'float' && format !== 'base64') {
			return badRequest("'encoding_format' must be 'float' or 'base64'.", 'encoding_format')
		}
		let tokens = 0
		const data = inputs.map((text: string, index) => {
			const words = wordsOf(text)
			tokens += Math.max(1, words.length)
			const vector = bagOfWordsVector(words, dimensions as number, scale)
			const embedding = format === 'base64' ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector)
			return { object: 'embedding', index, embedding }
		})
		return {
			body: { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
		}
	}
}

function wordsOf(text: string): string[] {
	return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
}

/** Each word adds ±1 in two hashed buckets; the empty text gets one fixed bucket so no vector is zero. */
export function bagOfWordsVector(words: string[], dimensions: number, scale = 1): Float32Array {
	const sums = new Float64Array(dimensions)
	for (const word of words.length > 0 ? words : ['']) {
		for (const seed of [0x811c9dc5, 0x01000193]) {
			const hash = fnv1a(word, seed)
			sums[hash % dimensions]! += hash & 0x80000000 ? -1 : 1
		}
	}
	let norm = Math.hypot(...sums)
	if (norm === 0) {
		sums[0] = 1
		norm = 1
	}
	return Float32Array.from(sums, (value) => (value / norm) * scale)
}

function fnv1a(text: string, seed: number): number {
	let hash = seed >>> 0
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i)
		hash = Math.imul(hash, 0x01000193)
	}
	return hash >>> 0
}

/** One scripted answer of `POST /v1/chat/completions`, or a function choosing it from the request. */
export type ScriptedCompletion = ScriptedAnswer | ((request: ChatCompletionRequest) => ScriptedAnswer)

export type ScriptedAnswer =
	/** A well-formed completion whose message content is this value as JSON (valid or not for the caller's schema). */
	| { json: unknown }
	/** A completion whose message content is this text as it is (for example malformed JSON). */
	| { text: string }
	/** An HTTP error with an OpenAI-shaped body; `retry-after-ms: 1` keeps SDK retries fast. */
	| { status: number; message?: string }

export interface ScriptedChatCompletions {
	handler: RouteHandler
	/** Adds answers to the end of the queue; each request takes the first. */
	enqueue(...answers: ScriptedCompletion[]): void
	/** The chat requests answered so far (their parsed bodies), in order. */
	calls: ChatCompletionRequest[]
	/** Empties the queue and forgets the calls. */
	reset(): void
}

export interface ChatCompletionRequest {
	model: string
	messages: { role: string; content: unknown }[]
	response_format?: { type: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean } }
	[key: string]: unknown
}

/**
 * A `POST /v1/chat/completions` handler that answers from a queue of scripted responses: structured output as JSON,
 * raw (malformed) text, or HTTP errors. With the queue empty it answers `whenEmpty` (default: a 500), so a test that
 * makes more calls than it scripted fails loudly. Install it with `emulator.setRoute('POST /v1/chat/completions',
 * scripted.handler)`.
 */
export function scriptedChatCompletions(
	whenEmpty: ScriptedCompletion = { status: 500, message: 'No scripted completion left' },
): ScriptedChatCompletions {
	const queue: ScriptedCompletion[] = []
	const calls: ChatCompletionRequest[] = []
	let completions = 0
	const handler: RouteHandler = (request) => {
		const body = request.body as ChatCompletionRequest | null
		if (!body || typeof body !== 'object' || !Array.isArray(body.messages)) {
			return badRequest("'messages' must be an array.", 'messages')
		}
		if (typeof body.model !== 'string' || body.model === '')
			return badRequest('You must provide a model parameter.', 'model')
		calls.push(body)
		const next = queue.shift() ?? whenEmpty
		const answer = typeof next === 'function' ? next(body) : next
		if ('status' in answer) {
			const type = answer.status >= 500 ? 'server_error' : 'invalid_request_error'
			return {
				status: answer.status,
				headers: { 'retry-after-ms': '1' },
				body: openAIError(answer.message ?? `Scripted failure (HTTP ${answer.status})`, type),
			}
		}
		const content = 'json' in answer ? JSON.stringify(answer.json) : answer.text
		completions++
		return {
			body: {
				id: `chatcmpl-emulator-${completions}`,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: body.model,
				choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
				usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
			},
		}
	}
	return {
		handler,
		calls,
		enqueue(...answers) {
			queue.push(...answers)
		},
		reset() {
			queue.length = 0
			calls.length = 0
		},
	}
}
