import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApiKey } from '../core/auth/api-keys.ts'
import { settingsFromEnv } from '../core/config/settings.ts'
import type { ExtractorPlugin, Plugin } from '../core/index.ts'
import { embeddedDatabaseDir } from '../core/index.ts'
import { createLogger, type Logger } from '../core/logger.ts'
import { embedderLocal } from '../plugins/embedder-local/index.ts'
import { extractorRules } from '../plugins/extractor-rules/index.ts'
import { storagePostgres } from '../plugins/storage-postgres/index.ts'
import { withDefaultFiles } from '../server/defaults.ts'
import { type Role, type Service, startService } from '../server/service.ts'
import { createTestDatabase } from './postgres.ts'

export type Driver = 'pglite' | 'postgres'

/** Built once per machine and shared by every test file, so only the first run pays for it. */
export const SHARED_EMBEDDER_CACHE = join(tmpdir(), 'memory-service-test-embedder-cache')

export interface TestService {
	service: Service
	/** A key of organization "default". */
	key: string
	dataDir: string
	databaseUrl: string | null
	request(
		method: string,
		path: string,
		options?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
	): Promise<Response>
	json<T = any>(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: T }>
	createKey(orgName: string): Promise<string>
	waitForStatus(documentId: string, statuses?: string[], key?: string, timeoutMs?: number): Promise<any>
	stop(): Promise<void>
}

/** What a test needs to call a service over its API: in-process (TestService) or a server process (remoteService). */
export type ServiceClient = Pick<TestService, 'key' | 'request' | 'json'>

/** `json` of a service client: a request with `key` unless another is given, its answer parsed. */
export function jsonOver(request: ServiceClient['request'], key: string): ServiceClient['json'] {
	return async (method, path, body, useKey) => {
		const response = await request(method, path, { body, key: useKey ?? key })
		const text = await response.text()
		return { status: response.status, body: text ? JSON.parse(text) : null }
	}
}

let rulesExtractor: ExtractorPlugin | null = null

/** One extractor-rules for every test service of the process: its language model is large, load it once. */
function sharedRulesExtractor(): ExtractorPlugin {
	rulesExtractor ??= extractorRules()
	return rulesExtractor
}

/** A real service (real store, local embedder, job queue and workers) served in-process through `app.handle`. */
export async function startTestService(
	driver: Driver,
	options: {
		role?: Role
		env?: Record<string, string>
		/** The extractor that forms memories: extractor-rules by default; null for none. */
		extractor?: ExtractorPlugin | null
		/** MEMORY_WORKER_CONCURRENCY (4 unless given). */
		workerConcurrency?: number
		/** More plugins, such as connectors. */
		plugins?: Plugin[]
		/** Where the service logs (errors only, on stderr, unless given). */
		logger?: Logger
		/** PostgreSQL: another test service's database, shared as two processes share one (not dropped at stop). */
		databaseUrl?: string
	} = {},
): Promise<TestService> {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-test-'))
	const shared = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : null
	const database = driver === 'postgres' ? (shared ?? (await createTestDatabase())) : null
	const env = { ...options.env, MEMORY_DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) }
	const settings = { ...settingsFromEnv(env), workerConcurrency: options.workerConcurrency ?? 4 }
	const plugins = [
		storagePostgres(database ? { databaseUrl: database.url } : { dataDir: embeddedDatabaseDir(dataDir) }),
		embedderLocal({ cacheDir: SHARED_EMBEDDER_CACHE }),
		...(options.extractor === null ? [] : [options.extractor ?? sharedRulesExtractor()]),
		...(options.plugins ?? []),
	]
	const service = await startService({
		settings,
		plugins: await withDefaultFiles(plugins, settings),
		logger: options.logger ?? createLogger('error'),
		role: options.role ?? 'all',
		env,
	})
	const key =
		service.firstKey ?? (await createApiKey(service.plugins.storage, { name: 'test', orgName: 'default' })).key

	const request: TestService['request'] = (method, path, { body, key: useKey = key, headers = {} } = {}) => {
		if (!service.app) throw new Error('this service has no HTTP app (worker role)')
		const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
		return service.app.handle(
			new Request(`http://localhost${path}`, {
				method,
				headers: {
					// As a real client sends them.
					...(payload !== undefined
						? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
						: {}),
					...(useKey ? { authorization: `Bearer ${useKey}` } : {}),
					...headers,
				},
				body: payload,
			}),
		)
	}
	const json = jsonOver(request, key)
	return {
		service,
		key,
		dataDir,
		databaseUrl: database?.url ?? null,
		request,
		json,
		async createKey(orgName) {
			return (await createApiKey(service.plugins.storage, { name: `${orgName} key`, orgName })).key
		},
		async waitForStatus(documentId, statuses = ['done', 'failed'], useKey, timeoutMs = 20_000) {
			const deadline = Date.now() + timeoutMs
			for (;;) {
				const { status, body } = await json('GET', `/v3/documents/${documentId}`, undefined, useKey)
				if (status === 200 && statuses.includes(body.status)) return body
				if (Date.now() > deadline) throw new Error(`document ${documentId} stuck at ${body?.status ?? status}`)
				await Bun.sleep(50)
			}
		},
		async stop() {
			await service.stop()
			await database?.drop()
			rmSync(dataDir, { recursive: true, force: true })
		},
	}
}
