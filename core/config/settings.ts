import { type IngestSettings, ingestSettingsFromEnv } from './ingest-settings.ts'
import { type MemorySettings, memorySettingsFromEnv } from './memory-settings.ts'
import { type SurfaceSettings, surfaceSettingsFromEnv } from './surface-settings.ts'

/** Service settings that are not plugins. Each has an environment variable; memory.config.ts may override any. */
export interface ServiceSettings extends IngestSettings, MemorySettings, SurfaceSettings {
	port: number
	hostname: string
	/** Embedded store and caches live here. */
	dataDir: string
	/** PostgreSQL server; when absent the embedded store is used. */
	databaseUrl: string | null
	/** Largest accepted request body, in bytes (413 above). */
	maxBodyBytes: number
	/** Documents a worker takes per fetch (two fetches at once on PostgreSQL); also the containers it dreams for at once. */
	workerConcurrency: number
	/** How long a verified API key is trusted before it is looked up again. */
	keyCacheSeconds: number
	/** Requests a minute per API key (token bucket); 0 turns rate limiting off. */
	rateLimitPerMinute: number
	/** Requests a minute per source address on the unauthenticated webhook routes; 0 turns that limit off. */
	webhookRateLimitPerMinute: number
	/** How long a webhook-triggered connector sync waits for more notifications before it starts. */
	webhookDebounceSeconds: number
	logLevel: string
}

type Env = Record<string, string | undefined>

export function integer(env: Env, name: string, fallback: number, min = 0, max?: number): number {
	const raw = env[name]
	if (raw === undefined || raw === '') return fallback
	const value = Number(raw)
	if (!Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
		const range = max === undefined ? `>= ${min}` : `from ${min} to ${max}`
		throw new Error(`${name} must be an integer ${range}, got "${raw}"`)
	}
	return value
}

export function settingsFromEnv(env: Env): ServiceSettings {
	return {
		port: integer(env, 'PORT', 8787),
		hostname: env.HOST || '0.0.0.0',
		dataDir: env.MEMORY_DATA_DIR || './data',
		databaseUrl: env.DATABASE_URL || null,
		maxBodyBytes: integer(env, 'MEMORY_MAX_BODY_BYTES', 10 * 1024 * 1024, 1024),
		workerConcurrency: integer(env, 'MEMORY_WORKER_CONCURRENCY', 4, 1),
		keyCacheSeconds: integer(env, 'MEMORY_KEY_CACHE_SECONDS', 10),
		rateLimitPerMinute: integer(env, 'MEMORY_RATE_LIMIT_PER_MINUTE', 0),
		webhookRateLimitPerMinute: integer(env, 'MEMORY_WEBHOOK_RATE_LIMIT_PER_MINUTE', 600),
		webhookDebounceSeconds: integer(env, 'MEMORY_WEBHOOK_DEBOUNCE_SECONDS', 60),
		logLevel: env.LOG_LEVEL || 'info',
		...ingestSettingsFromEnv(env, integer),
		...memorySettingsFromEnv(env, integer),
		...surfaceSettingsFromEnv(env),
	}
}
