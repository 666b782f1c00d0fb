import { join } from 'node:path'
import { integer, type ServiceSettings } from '../core/config/settings.ts'
import type { Plugin } from '../core/index.ts'
import { embeddedDatabaseDir } from '../core/index.ts'
import { connectorsFromEnv } from './connectors-from-env.ts'

type Env = Record<string, string | undefined>

/**
 * Builds the default plugin list from environment variables. Imports are lazy so that an unused plugin's
 * dependencies (an SDK, a WASM database) are never loaded.
 */
export async function pluginsFromEnv(settings: ServiceSettings, env: Env): Promise<Plugin[]> {
	const { storagePostgres } = await import('../plugins/storage-postgres/index.ts')
	const storage = storagePostgres(
		settings.databaseUrl
			? { databaseUrl: settings.databaseUrl }
			: {
					dataDir: embeddedDatabaseDir(settings.dataDir),
					sharedBuffers: env.MEMORY_PGLITE_SHARED_BUFFERS || undefined,
				},
	)
	return [
		storage,
		await embedderFromEnv(settings, env),
		...(await extractorFromEnv(env)),
		...(await connectorsFromEnv(env)),
	]
}

/**
 * MEMORY_EXTRACTOR: `rules` (default: offline, extractor-rules), `llm` (extractor-llm against OPENAI_BASE_URL with
 * OPENAI_API_KEY and MEMORY_LLM_MODEL, at most MEMORY_LLM_CONCURRENCY requests at once, falling back to the rules
 * extractor) or `none` (no memories are formed).
 */
async function extractorFromEnv(env: Env): Promise<Plugin[]> {
	const choice = env.MEMORY_EXTRACTOR || 'rules'
	if (choice === 'none') return []
	if (choice !== 'rules' && choice !== 'llm') {
		throw new Error(`MEMORY_EXTRACTOR must be "rules", "llm" or "none", got "${choice}"`)
	}
	const { extractorRules } = await import('../plugins/extractor-rules/index.ts')
	if (choice === 'rules') return [extractorRules()]
	const { extractorLLM } = await import('../plugins/extractor-llm/index.ts')
	return [
		extractorLLM({
			baseURL: env.OPENAI_BASE_URL,
			apiKey: env.OPENAI_API_KEY,
			model: env.MEMORY_LLM_MODEL,
			maxConcurrentRequests: integer(env, 'MEMORY_LLM_CONCURRENCY', 8, 1),
			fallback: extractorRules(),
		}),
	]
}

async function embedderFromEnv(settings: ServiceSettings, env: Env): Promise<Plugin> {
	const choice = env.MEMORY_EMBEDDER || (env.OPENAI_API_KEY || env.OPENAI_BASE_URL ? 'openai' : 'local')
	if (choice === 'openai') {
		const { embedderOpenAI } = await import('../plugins/embedder-openai/index.ts')
		const dimensions = env.OPENAI_EMBEDDING_DIMENSIONS ? Number(env.OPENAI_EMBEDDING_DIMENSIONS) : undefined
		if (dimensions !== undefined && (!Number.isInteger(dimensions) || dimensions < 1)) {
			throw new Error(
				`OPENAI_EMBEDDING_DIMENSIONS must be a positive integer, got "${env.OPENAI_EMBEDDING_DIMENSIONS}"`,
			)
		}
		return embedderOpenAI({
			apiKey: env.OPENAI_API_KEY,
			baseURL: env.OPENAI_BASE_URL,
			model: env.OPENAI_EMBEDDING_MODEL,
			dimensions,
		})
	}
	if (choice !== 'local') throw new Error(`MEMORY_EMBEDDER must be "local" or "openai", got "${choice}"`)
	const { embedderLocal } = await import('../plugins/embedder-local/index.ts')
	return embedderLocal({ cacheDir: env.MEMORY_CACHE_DIR || join(settings.dataDir, 'cache') })
}
