import { createOpenAI } from '@ai-sdk/openai'
import { embedMany } from 'ai'
import type { EmbedderPlugin, EmbedPurpose, VectorSpace } from '../../core/index.ts'
import { PLUGIN_API_VERSION } from '../../core/index.ts'
import { describeError } from './describe-error.ts'
import { toUnitVector } from './unit-vector.ts'

export const OPENAI_BASE_URL = 'https://api.openai.com/v1'
const DEFAULT_MODEL = 'text-embedding-3-small'
const DEFAULT_DIMENSIONS = 1536
const DEFAULT_BATCH_SIZE = 256

export interface EmbedderOpenAIOptions {
	/** Optional for local servers (Ollama, vLLM); required for OpenAI itself. */
	apiKey?: string
	/** Any OpenAI-compatible endpoint, including `/v1`. Default: OpenAI. */
	baseURL?: string
	model?: string
	/**
	 * The model's vector size. When set it is also sent as the `dimensions` request parameter (text-embedding-3
	 * shortens its vectors to it); when unset nothing is sent and the model must answer with 1536 dimensions.
	 */
	dimensions?: number
	/** Texts per request. Default 256. */
	batchSize?: number
	/** Retries per request on 408, 409, 429 and 5xx answers (the AI SDK's back-off). Default 2. */
	maxRetries?: number
}

/** Embeddings from any OpenAI-compatible endpoint, through the AI SDK. */
export function embedderOpenAI(options: EmbedderOpenAIOptions = {}): EmbedderPlugin {
	const baseURL = (options.baseURL || OPENAI_BASE_URL).replace(/\/+$/, '')
	const modelId = options.model || DEFAULT_MODEL
	const requestedDimensions = options.dimensions
	const dimensions = requestedDimensions ?? DEFAULT_DIMENSIONS
	const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE
	if (!Number.isInteger(dimensions) || dimensions < 1) {
		throw new Error(`embedder-openai: dimensions must be a positive integer, got ${dimensions}`)
	}
	if (!Number.isInteger(batchSize) || batchSize < 1) {
		throw new Error(`embedder-openai: batchSize must be a positive integer, got ${batchSize}`)
	}
	const space: VectorSpace = { id: `openai:${modelId}:${dimensions}`, dimensions }
	const where = `${baseURL} (model "${modelId}")`
	// Local servers need no key, but the SDK always sends one, and must not fall back to reading OPENAI_API_KEY itself.
	const apiKey = options.apiKey || (baseURL === OPENAI_BASE_URL ? undefined : 'no-key')
	const model = createOpenAI({ baseURL, apiKey: apiKey ?? '' }).embedding(modelId)

	async function embedBatch(values: string[]): Promise<Float32Array[]> {
		const { embeddings } = await embedMany({
			model,
			values,
			dimensions: requestedDimensions,
			maxRetries: options.maxRetries,
		}).catch((error: unknown) => {
			throw new Error(`embedder-openai: embedding request to ${where} failed: ${describeError(error)}`, {
				cause: error,
			})
		})
		return embeddings.map((embedding) => {
			if (embedding.length !== dimensions) {
				throw new Error(
					`embedder-openai: ${where} returned ${embedding.length}-dimensional vectors, expected ${dimensions}; ` +
						'set the embedder dimensions (OPENAI_EMBEDDING_DIMENSIONS) to the model size',
				)
			}
			const unit = toUnitVector(embedding)
			if (!unit) throw new Error(`embedder-openai: ${where} returned a zero or non-finite vector`)
			return unit
		})
	}

	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'embedder',
		name: 'embedder-openai',
		space,
		init() {
			if (!apiKey) throw new Error(`embedder-openai: an API key is required for ${baseURL} (set OPENAI_API_KEY)`)
		},
		async embed(texts: string[], _purpose: EmbedPurpose) {
			const vectors: Float32Array[] = []
			for (let start = 0; start < texts.length; start += batchSize) {
				vectors.push(...(await embedBatch(texts.slice(start, start + batchSize))))
			}
			return vectors
		},
	}
}
