import { join } from 'node:path'
/**
 * Memory formation speed: documents per second for 1 KB chat documents (LoCoMo turns as `Speaker: text` lines) with
 * the rules extractor, on each driver. Documents are ingested with dynamic dreaming and a long quiet interval, so the
 * pipeline finishes them first; then the dreaming batches of all containers run (4 at once, as the worker does) and
 * are timed. A second run forms the same kind of documents with instant dreaming, pipeline included.
 *
 *   bun bench/dreaming.ts [--driver embedded|postgres] [--quick]
 */
import { createApiKey } from '../core/auth/api-keys.ts'
import { settingsFromEnv } from '../core/config/settings.ts'
import { embeddedDatabaseDir } from '../core/index.ts'
import { createLogger } from '../core/logger.ts'
import { dreamContainer } from '../core/memory/dreaming.ts'
import { embedderLocal } from '../plugins/embedder-local/index.ts'
import { extractorRules } from '../plugins/extractor-rules/index.ts'
import { filesLocal } from '../plugins/files-local/index.ts'
import { storagePostgres } from '../plugins/storage-postgres/index.ts'
import { type Service, startService } from '../server/service.ts'
import { loadConversations, turnLine } from './lib/locomo-data.ts'
import { printMachine } from './lib/machine.ts'
import { BENCH_EMBEDDER_CACHE, type BenchStore, createStore, type Driver, driversToRun, QUICK } from './lib/store.ts'
import { type Cell, fixed, heading, note, printTable } from './lib/table.ts'

const DOCUMENTS = QUICK ? 200 : 1_000
const CONTAINERS = 10
const TARGET_CHARS = 1_024

/** 1 KB chat documents cut from the LoCoMo sessions, in order. */
function chatDocuments(count: number): string[] {
	const conversations = loadConversations()
	if (!conversations) throw new Error('the LoCoMo dev set is missing')
	const lines = conversations.flatMap((c) => c.sessions.flatMap((s) => s.turns.map(turnLine)))
	const documents: string[] = []
	let current: string[] = []
	let size = 0
	for (let i = 0; documents.length < count; i = (i + 1) % lines.length) {
		const line = lines[i]!
		current.push(line)
		size += line.length + 1
		if (size >= TARGET_CHARS) {
			documents.push(current.join('\n'))
			current = []
			size = 0
		}
	}
	return documents
}

async function open(store: BenchStore, quietSeconds: number): Promise<{ service: Service; key: string }> {
	const env = { ...store.env, MEMORY_DREAMING_QUIET_SECONDS: String(quietSeconds), MEMORY_WORKER_CONCURRENCY: '4' }
	const service = await startService({
		settings: settingsFromEnv(env),
		plugins: [
			storagePostgres(
				store.databaseUrl ? { databaseUrl: store.databaseUrl } : { dataDir: embeddedDatabaseDir(store.dataDir) },
			),
			embedderLocal({ cacheDir: BENCH_EMBEDDER_CACHE }),
			extractorRules(),
			filesLocal({ dir: join(store.dataDir, 'files') }),
		],
		logger: createLogger('error'),
		env,
	})
	const key = service.firstKey ?? (await createApiKey(service.plugins.storage, { name: 'bench', orgName: 'bench' })).key
	return { service, key }
}

async function call(service: Service, key: string, method: string, path: string, body?: unknown) {
	const response = await service.app!.handle(
		new Request(`http://localhost${path}`, {
			method,
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		}),
	)
	return (await response.json()) as any
}

async function ingest(service: Service, key: string, contents: string[], dreaming: 'instant' | 'dynamic', tag: string) {
	const ids: string[] = []
	for (const [i, content] of contents.entries()) {
		const added = await call(service, key, 'POST', '/v3/documents', {
			content,
			containerTag: `${tag}_${i % CONTAINERS}`,
			dreaming,
		})
		ids.push(added.id)
	}
	return ids
}

/** Until no document of the organization is still in the pipeline (one cheap query per poll, whatever the count). */
async function waitForPipeline(service: Service, key: string) {
	for (;;) {
		const processing = await call(service, key, 'GET', '/v3/documents/processing')
		if (processing.totalCount === 0) return
		await Bun.sleep(250)
	}
}

async function benchDriver(driver: Driver, rows: Cell[][]) {
	const store = await createStore(driver)
	const contents = chatDocuments(DOCUMENTS)
	try {
		// Dynamic: pipeline first, then the batches, timed alone.
		let { service, key } = await open(store, 3600)
		await ingest(service, key, contents, 'dynamic', 'dyn')
		await waitForPipeline(service, key)
		const orgId = (await service.plugins.storage.orgs.byName('bench'))?.id ?? (await firstOrg(service))
		const containers = Array.from({ length: CONTAINERS }, (_, i) => `dyn_${i}`)
		const deps = dreamingDeps(service)
		const started = performance.now()
		let next = 0
		await Promise.all(
			Array.from({ length: 4 }, async () => {
				while (next < containers.length) {
					const containerTag = containers[next++]!
					await dreamContainer({ orgId, containerTag }, deps, { lastAttempt: true })
				}
			}),
		)
		const seconds = (performance.now() - started) / 1000
		const memories = await countMemories(service, key, containers)
		rows.push([
			driver,
			'dynamic batches (formation only)',
			DOCUMENTS,
			memories,
			fixed(seconds),
			fixed(DOCUMENTS / seconds),
		])
		await service.stop()

		// Instant: the whole pipeline plus formation, per document.
		;({ service, key } = await open(store, 3600))
		const instantStarted = performance.now()
		await ingest(service, key, contents, 'instant', 'inst')
		await waitForPipeline(service, key)
		const instantSeconds = (performance.now() - instantStarted) / 1000
		const instantMemories = await countMemories(
			service,
			key,
			Array.from({ length: CONTAINERS }, (_, i) => `inst_${i}`),
		)
		rows.push([
			driver,
			'instant (pipeline + formation)',
			DOCUMENTS,
			instantMemories,
			fixed(instantSeconds),
			fixed(DOCUMENTS / instantSeconds),
		])
		await service.stop()
	} finally {
		await store.dispose()
	}
}

function dreamingDeps(service: Service) {
	const { storage, embedder, extractors } = service.plugins
	return {
		storage,
		embedder,
		extractor: extractors[0] ?? null,
		logger: createLogger('error'),
		queue: service.queue,
		quietSeconds: 3600,
		maxWaitSeconds: 3600,
	}
}

async function firstOrg(service: Service): Promise<string> {
	const org = await service.plugins.storage.orgs.byName('default')
	if (!org) throw new Error('no organization')
	return org.id
}

async function countMemories(service: Service, key: string, containers: string[]): Promise<number> {
	const listed = await call(service, key, 'POST', '/v4/memories/list', { containerTags: containers, limit: 1 })
	return listed.pagination.totalItems
}

async function main() {
	await printMachine(process.env.BENCH_DATABASE_URL ?? null)
	heading('Memory formation (rules extractor, 1 KB chat documents)')
	const rows: Cell[][] = []
	for (const driver of driversToRun()) await benchDriver(driver, rows)
	printTable('Documents per second', ['driver', 'mode', 'documents', 'memories', 'seconds', 'documents/s'], rows)
	note(
		`${CONTAINERS} containers; dynamic batches run 4 containers at once (up to 25 documents per formation transaction); instant: the service's worker with its defaults (4 documents per fetch, two fetches at once on PostgreSQL). Target: >= 100 documents/s on PostgreSQL.`,
	)
}

await main()
