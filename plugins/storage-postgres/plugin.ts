import { type Logger, PLUGIN_API_VERSION, StartupError, type StoragePlugin } from '../../core/index.ts'
import type { Db, Driver } from './db.ts'
import { migrate, storesOver } from './queries/index.ts'
import { EMBEDDED_STATISTICS_TARGET, PlannerStatistics } from './queries/statistics.ts'

export interface StoragePostgresOptions {
	/** A PostgreSQL server (with pgvector); without it the store is embedded (PGlite). */
	databaseUrl?: string
	/** The embedded store's directory; `memory://` keeps it in memory. Default `./data`. */
	dataDir?: string
	/**
	 * The embedded database's buffer cache (PostgreSQL's `shared_buffers`, e.g. `64MB`), most of the service's resident
	 * memory once in use. Default `64MB`.
	 */
	sharedBuffers?: string
}

export const DEFAULT_DATA_DIR = './data'
// PGlite's own default is 128MB, and the embedded service touches it all: 64MB keeps the resident size lower
// (docs/measurements.md).
export const DEFAULT_SHARED_BUFFERS = '64MB'

/** One storage plugin, two drivers: PostgreSQL through postgres.js, or embedded PGlite. Same schema, same SQL. */
export function storagePostgres(options: StoragePostgresOptions = {}): StoragePlugin {
	let driver: Driver | null = null
	const started = (): Driver => {
		if (!driver) throw new Error('storage-postgres is not started: call init() first')
		return driver
	}
	const db = (): Db => started().db
	// PostgreSQL's autovacuum analyzes too, but late: there the plugin's ANALYZEs are at least 30 s apart. The
	// embedded store analyzes on the event loop, with a smaller sample.
	const statistics = options.databaseUrl
		? new PlannerStatistics(db, { minIntervalMs: 30_000 })
		: new PlannerStatistics(db, { statisticsTarget: EMBEDDED_STATISTICS_TARGET, cleanPendingLists: true })
	const close = async () => {
		const open = driver
		// Best effort: without the saved count the next start just runs ANALYZE.
		if (open && !open.autovacuum) await statistics.save().catch(() => {})
		driver = null
		await open?.close()
	}
	// Also on PostgreSQL: autovacuum analyzes a table at most once a minute (often much later), and a container
	// that grows from nothing plans its formation reads as if it held one row until then (hash joins over the whole
	// container instead of index lookups; docs/measurements.md).
	const rowsChanged = (count: number) => statistics.rowsChanged(count)
	const stores = storesOver(db, { chunks: { published: rowsChanged }, memories: { written: rowsChanged } })

	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'storage',
		name: 'storage-postgres',

		async init(ctx) {
			try {
				driver ??= await openDriver(options, ctx.logger)
				await migrate(driver.db, ctx.vectorSpace, ctx.logger)
				if (driver.autovacuum) await statistics.track()
				else await statistics.resume()
			} catch (error) {
				await close()
				if (error instanceof StartupError) throw error
				throw new StartupError(`storage-postgres could not prepare the store: ${(error as Error).message}`, {
					cause: error,
				})
			}
		},
		close,

		...stores,
		jobDatabase: () => started().jobDatabase(),
		oneConnection: !options.databaseUrl,
	}
}

/** Drivers load lazily, so the server store never loads PGlite's WebAssembly and the embedded one never loads postgres.js. */
async function openDriver(options: StoragePostgresOptions, logger: Logger): Promise<Driver> {
	if (options.databaseUrl) {
		const { openPostgres } = await import('./drivers/postgres.ts')
		return openPostgres(options.databaseUrl)
	}
	const { openPglite } = await import('./drivers/pglite.ts')
	return openPglite(options.dataDir ?? DEFAULT_DATA_DIR, options.sharedBuffers ?? DEFAULT_SHARED_BUFFERS, { logger })
}
