import { createOpenAI } from '@ai-sdk/openai'
import { generateText, Output } from 'ai'
import pLimit from 'p-limit'
import type { ExtractionInput, ExtractorPlugin, Logger, MemoryCandidate, PluginContext } from '../../core/index.ts'
import { createLogger, PLUGIN_API_VERSION, SUMMARY_MAX } from '../../core/index.ts'
import { describeError } from './describe-error.ts'
import { type InputPart, splitIntoParts } from './parts.ts'
import { SYSTEM_PROMPT, userPrompt } from './prompt.ts'
import { sanitizeMemories } from './sanitize.ts'
import { extractionSchema } from './schema.ts'

export const OPENAI_BASE_URL = 'https://api.openai.com/v1'
const DEFAULT_MODEL = 'gpt-4o-mini'
const DEFAULT_MAX_CALLS = 4
const DEFAULT_MAX_RETRIES = 2
const DEFAULT_MAX_CONCURRENT_REQUESTS = 8
const DEFAULT_MAX_CHARS_PER_CALL = 12_000
const DEFAULT_TIMEOUT_MS = 120_000

export interface ExtractorLLMOptions {
	/** Any OpenAI-compatible endpoint, including `/v1` (OpenAI, Ollama, vLLM, LM Studio). Default: OpenAI. */
	baseURL?: string
	/** Optional for local servers; required for OpenAI itself. */
	apiKey?: string
	/** A chat model that supports structured output (JSON schema). Default `gpt-4o-mini`. */
	model?: string
	/**
	 * Most requests per extraction input (default 4). A longer input is split into at most this many parts (whole
	 * turns, chunks or paragraphs); each part is one request, retried at most `maxRetries` times, so one input costs
	 * at most `maxCalls × (1 + maxRetries)` HTTP requests.
	 */
	maxCalls?: number
	/** Retries of a request on 408, 409, 429 and 5xx answers, with the AI SDK's exponential back-off. Default 2. */
	maxRetries?: number
	/** Below `maxCalls`, how long a part may grow before the input is split further. Default 12,000 characters. */
	maxCharsPerCall?: number
	/**
	 * Requests in flight at most, across every document this plugin extracts at once (dreaming batches of several
	 * containers extract many documents together; a local model server would queue or refuse them). Default 8.
	 */
	maxConcurrentRequests?: number
	/** Time allowed for one request, retries included, before the part falls back. Default 120 s. */
	timeoutMs?: number
	/** Extracts a part whose request failed or whose answer was invalid (normally `extractorRules()`). */
	fallback: ExtractorPlugin
}

/**
 * Memory extraction by a language model through the AI SDK's structured output (a JSON schema, never free text),
 * against any OpenAI-compatible chat completions endpoint. Parts whose request fails (after retries) or whose answer
 * does not fit the schema are extracted by the fallback extractor instead, and logged.
 */
export function extractorLLM(options: ExtractorLLMOptions): ExtractorPlugin {
	const baseURL = (options.baseURL || OPENAI_BASE_URL).replace(/\/+$/, '')
	const modelId = options.model || DEFAULT_MODEL
	const maxCalls = options.maxCalls ?? DEFAULT_MAX_CALLS
	const maxConcurrentRequests = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS
	const maxCharsPerCall = options.maxCharsPerCall ?? DEFAULT_MAX_CHARS_PER_CALL
	const { fallback } = options
	if (!Number.isInteger(maxCalls) || maxCalls < 1) {
		throw new Error(`extractor-llm: maxCalls must be a positive integer, got ${maxCalls}`)
	}
	if (!Number.isInteger(maxConcurrentRequests) || maxConcurrentRequests < 1) {
		throw new Error(`extractor-llm: maxConcurrentRequests must be a positive integer, got ${maxConcurrentRequests}`)
	}
	if (fallback?.kind !== 'extractor') throw new Error('extractor-llm: a fallback extractor is required')
	const inFlight = pLimit(maxConcurrentRequests)
	// Local servers need no key, but the SDK always sends one and must not read OPENAI_API_KEY by itself.
	const apiKey = options.apiKey || (baseURL === OPENAI_BASE_URL ? undefined : 'no-key')
	const model = createOpenAI({ baseURL, apiKey: apiKey ?? '' }).chat(modelId)
	const where = `${baseURL} (model "${modelId}")`
	let logger: Logger = createLogger()

	async function askModel(input: ExtractionInput, part: InputPart): Promise<MemoryCandidate[]> {
		const { output } = await generateText({
			model,
			system: SYSTEM_PROMPT,
			prompt: userPrompt(input, part),
			output: Output.object({ schema: extractionSchema, name: 'memories' }),
			temperature: 0,
			maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
			abortSignal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
		})
		const candidates = sanitizeMemories(output.memories, part, input)
		if (!candidates) throw new Error('the model listed memories, none of them usable')
		return candidates
	}

	async function extractPart(input: ExtractionInput, part: InputPart, index: number, count: number) {
		try {
			return await inFlight(() => askModel(input, part))
		} catch (error) {
			logger.warn('extractor-llm: model extraction failed, using the fallback extractor for this part', {
				documentId: input.documentId,
				part: `${index + 1}/${count}`,
				endpoint: where,
				fallback: fallback.name,
				error: describeError(error),
			})
			return fallback.extract(part.input)
		}
	}

	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'extractor',
		name: 'extractor-llm',
		async init(ctx: PluginContext) {
			logger = ctx.logger
			if (!apiKey) throw new Error(`extractor-llm: an API key is required for ${baseURL} (set OPENAI_API_KEY)`)
			await fallback.init?.(ctx)
		},
		async close() {
			await fallback.close?.()
		},
		async extract(input: ExtractionInput): Promise<MemoryCandidate[]> {
			const parts = splitIntoParts(input, maxCalls, maxCharsPerCall)
			const results = await Promise.all(parts.map((part, index) => extractPart(input, part, index, parts.length)))
			return concatenate(results)
		},
		async summarize({ text, title }) {
			try {
				const { text: written } = await inFlight(() =>
					generateText({
						model,
						system: SUMMARY_PROMPT,
						prompt: `${title ? `Title: ${title}\n\n` : ''}${text.slice(0, maxCharsPerCall)}`,
						temperature: 0,
						maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
						abortSignal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
					}),
				)
				return boundedSummary(written)
			} catch (error) {
				logger.warn('extractor-llm: summary failed, the offline one is used', {
					endpoint: where,
					error: describeError(error),
				})
				return null
			}
		},
	}
}

const SUMMARY_PROMPT = `Summarize the document the user sends in one to three plain sentences, at most ${SUMMARY_MAX} characters: what it is about and its main points, in its own language. Answer with the summary only, no preamble, no markdown.`

/** The model's summary on one line, cut at a sentence (else a word) when it ran over SUMMARY_MAX; null when empty. */
function boundedSummary(written: string): string | null {
	const line = written.replace(/\s+/g, ' ').trim()
	if (line === '') return null
	if (line.length <= SUMMARY_MAX) return line
	const head = line.slice(0, SUMMARY_MAX)
	const sentence = head.search(/[.!?][^.!?]*$/)
	if (sentence > SUMMARY_MAX / 2) return head.slice(0, sentence + 1)
	const space = head.lastIndexOf(' ', SUMMARY_MAX - 1)
	return `${head.slice(0, space > 0 ? space : SUMMARY_MAX - 1)}…`
}

/** The parts' candidates in order, with `derivedFrom` indexes moved to the combined list. */
function concatenate(results: MemoryCandidate[][]): MemoryCandidate[] {
	const combined: MemoryCandidate[] = []
	for (const candidates of results) {
		const offset = combined.length
		for (const candidate of candidates) {
			combined.push(
				candidate.derivedFrom
					? { ...candidate, derivedFrom: candidate.derivedFrom.map((index) => index + offset) }
					: candidate,
			)
		}
	}
	return combined
}
