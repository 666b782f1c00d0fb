import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApiKey } from '../../core/auth/api-keys.ts'
import { embeddedDatabaseDir } from '../../core/index.ts'
import { createLogger } from '../../core/logger.ts'
import { type StartedPlugins, startPlugins } from '../../core/plugins/registry.ts'
import { embedderLocal } from '../../plugins/embedder-local/index.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { BENCH_DATABASE_URL, createBenchDatabase, databaseBytes } from './database.ts'

export type Driver = 'embedded' | 'postgres'

/** Built once per machine, like the test suite's: only the first bench run pays for the word-vector cache. */
export const BENCH_EMBEDDER_CACHE = join(tmpdir(), 'memory-service-bench-embedder-cache')

/**
 * The drivers to measure: `--driver embedded|postgres` (or BENCH_DRIVERS=a,b); by default the embedded store, and
 * PostgreSQL too when BENCH_DATABASE_URL is set.
 */
export function driversToRun(argv = process.argv.slice(2)): Driver[] {
	const requested = (flagValue(argv, 'driver') ?? process.env.BENCH_DRIVERS)
		?.split(',')
		.map((value) => value.trim())
		.filter(Boolean)
	const drivers = (requested ?? ['embedded', 'postgres']) as Driver[]
	for (const driver of drivers) {
		if (driver !== 'embedded' && driver !== 'postgres') throw new Error(`unknown driver "${driver}"`)
	}
	return drivers.filter((driver) => {
		if (driver === 'postgres' && !BENCH_DATABASE_URL) {
			console.log('\n> PostgreSQL: skipped (set BENCH_DATABASE_URL to a server with pgvector, or run `bun run bench`).')
			return false
		}
		return true
	})
}

/** `--name value` or `--name=value`. */
export function flagValue(argv: string[], name: string): string | undefined {
	const joined = argv.find((arg) => arg.startsWith(`--${name}=`))
	if (joined) return joined.slice(name.length + 3)
	const index = argv.indexOf(`--${name}`)
	return index >= 0 ? argv[index + 1] : undefined
}

/** `--quick` (or BENCH_QUICK=1): smaller sizes and counts, to check a bench end to end in a minute. */
export const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1'

/** A fresh, empty store of one driver: a temporary data directory, and a new database on PostgreSQL. */
export interface BenchStore {
	driver: Driver
	dataDir: string
	databaseUrl: string | null
	/** Environment for `bun server/main.ts` on this store. */
	env: Record<string, string>
	/** On-disk size of the database (embedded: its folder; PostgreSQL: pg_database_size). */
	diskBytes(): Promise<number>
	dispose(): Promise<void>
}

export async function createStore(driver: Driver): Promise<BenchStore> {
	const dataDir = mkdtempSync(join(tmpdir(), `memory-bench-${driver}-`))
	const database = driver === 'postgres' ? await createBenchDatabase(BENCH_DATABASE_URL!) : null
	return {
		driver,
		dataDir,
		databaseUrl: database?.url ?? null,
		env: {
			MEMORY_DATA_DIR: dataDir,
			MEMORY_CACHE_DIR: BENCH_EMBEDDER_CACHE,
			...(database ? { DATABASE_URL: database.url } : {}),
		},
		async diskBytes() {
			if (database) return databaseBytes(database.url)
			return directoryBytes(embeddedDatabaseDir(dataDir))
		},
		async dispose() {
			await database?.drop()
			rmSync(dataDir, { recursive: true, force: true })
		},
	}
}

/**
 * A store an earlier run kept (`--keep`), already loaded: a PostgreSQL database URL, or the data folder of an embedded
 * store. The same interface; `dispose` leaves the store (only a PostgreSQL server's own data folder goes).
 */
export function keptStore(location: string): BenchStore {
	if (!location.startsWith('postgres')) {
		return {
			driver: 'embedded',
			dataDir: location,
			databaseUrl: null,
			env: { MEMORY_DATA_DIR: location, MEMORY_CACHE_DIR: BENCH_EMBEDDER_CACHE },
			diskBytes: async () => directoryBytes(embeddedDatabaseDir(location)),
			async dispose() {},
		}
	}
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-bench-postgres-'))
	return {
		driver: 'postgres',
		dataDir,
		databaseUrl: location,
		env: { MEMORY_DATA_DIR: dataDir, MEMORY_CACHE_DIR: BENCH_EMBEDDER_CACHE, DATABASE_URL: location },
		diskBytes: () => databaseBytes(location),
		async dispose() {
			rmSync(dataDir, { recursive: true, force: true })
		},
	}
}

export async function directoryBytes(path: string): Promise<number> {
	const result = Bun.spawnSync(['du', '-sb', path])
	return Number(result.stdout.toString().split('\t')[0]) || 0
}

/**
 * The store's plugins (storage + local embedder) opened in this process, for seeding through the storage plugin.
 * The embedded store may be open in one process at a time: close this before starting a server on it.
 */
export async function openPlugins(store: BenchStore): Promise<StartedPlugins> {
	return startPlugins(
		[
			storagePostgres(
				store.databaseUrl ? { databaseUrl: store.databaseUrl } : { dataDir: embeddedDatabaseDir(store.dataDir) },
			),
			embedderLocal({ cacheDir: BENCH_EMBEDDER_CACHE }),
		],
		{ logger: createLogger('error'), env: {} },
	)
}

/** The query embedding of `text` by the local embedder alone, without opening a store. */
export async function embedQuery(text: string): Promise<Float32Array> {
	const embedder = embedderLocal({ cacheDir: BENCH_EMBEDDER_CACHE })
	await embedder.init?.({ logger: createLogger('error'), env: {}, vectorSpace: embedder.space })
	try {
		const [vector] = await embedder.embed([text], 'query')
		return vector!
	} finally {
		await embedder.close?.()
	}
}

/** Prepares the schema and returns an API key of the organization the bench measures. */
export async function prepareStore(store: BenchStore, orgName = 'bench'): Promise<{ key: string; orgId: string }> {
	const plugins = await openPlugins(store)
	try {
		const { key, orgId } = await createApiKey(plugins.storage, { name: 'bench', orgName })
		return { key, orgId }
	} finally {
		await plugins.stop()
	}
}
