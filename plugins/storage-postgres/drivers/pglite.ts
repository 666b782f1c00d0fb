import { mkdirSync } from 'node:fs'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { BackgroundLane, type Logger } from '../../../core/index.ts'
import { type Db, type Driver, laneDb } from '../db.ts'
import { PgliteStatements } from './pglite-statements.ts'
import { isNewStore, loadTemplate, PGLITE_TEMPLATE_DIR } from './pglite-template.ts'

/**
 * Background statements handed to PGlite at once. It runs one statement at a time, so each one queued ahead is one
 * more a search waits behind; two keep it busy while the next is prepared.
 */
const BACKGROUND_BUDGET = 2

/**
 * GIN indexes queue new entries in a pending list up to this size (PostgreSQL's default is 4MB). Every full-text
 * search reads the whole list, and the insert that outgrows it moves the list into the index while holding the one
 * connection; the plugin also empties the lists with each statistics refresh (docs/postgres-tuning.md).
 */
export const GIN_PENDING_LIST_LIMIT = '256kB'

export interface PgliteOptions {
	/** Where a new store's template lives (a directory as `bun run pglite-template` writes it). */
	templateDir?: string
	/** Told why a new store is created by initdb rather than from the template. */
	logger?: Pick<Logger, 'warn'>
}

/**
 * The embedded store: PGlite with pgvector, persisted in `dataDir` (`memory://` keeps it in memory), with a buffer
 * cache of `sharedBuffers` (PostgreSQL units, e.g. `64MB`). A new store starts from the template when it matches the
 * installed PGlite; otherwise, or for an existing store, PGlite opens or creates the directory itself.
 */
export async function openPglite(
	dataDir: string,
	sharedBuffers?: string,
	options: PgliteOptions = {},
): Promise<Driver> {
	if (sharedBuffers !== undefined && !/^\d+(kB|MB|GB)$/.test(sharedBuffers)) {
		throw new Error(`shared buffers must be a size such as 64MB, not "${sharedBuffers}"`)
	}
	const template = isNewStore(dataDir) ? loadTemplate(options.templateDir ?? PGLITE_TEMPLATE_DIR) : null
	if (template && 'unusable' in template) {
		const logger = options.logger ?? console
		logger.warn(`PGlite template not used, creating the store with initdb: ${template.unusable}`)
	}
	// A path (not a `memory://`-style URL) may name directories that do not exist yet.
	if (!/^[a-z]+:\/\//.test(dataDir)) mkdirSync(dataDir, { recursive: true })
	const pg = await PGlite.create({
		dataDir,
		...(template && 'data' in template ? { loadDataDir: template.data } : {}),
		extensions: { vector },
		...(sharedBuffers ? { postgresqlconf: `shared_buffers = ${sharedBuffers}` } : {}),
	})
	// As on PostgreSQL (drivers/postgres.ts): statements are prepared, but each execution is planned for its parameters.
	await pg.exec(`SET plan_cache_mode = force_custom_plan; SET gin_pending_list_limit = '${GIN_PENDING_LIST_LIMIT}'`)
	return {
		db: laneDb(pgliteDb(pg), new BackgroundLane(BACKGROUND_BUDGET)),
		autovacuum: false,
		jobDatabase: () => ({
			kind: 'executor',
			executeSql: (text, values) => pg.query(text, values),
			listen: (channel, callback) => pg.listen(channel, callback).then((unlisten) => () => unlisten()),
			raw: pg,
		}),
		close: () => pg.close(),
	}
}

function pgliteDb(pg: PGlite): Db {
	const statements = new PgliteStatements(pg)
	return {
		query: <T>(text: string, params: unknown[] = []) => statements.query<T>(text, params),
		exec: async (statements) => {
			await pg.exec(statements)
		},
		transaction: (fn) => pg.transaction((tx) => fn(transactionDb(tx, statements))),
	}
}

function transactionDb(tx: Transaction, statements: PgliteStatements): Db {
	const db: Db = {
		query: async <T>(text: string, params: unknown[] = []) => {
			if (tx.closed) throw new Error('Transaction is closed')
			return statements.inTransaction<T>(text, params)
		},
		exec: async (statements) => {
			await tx.exec(statements)
		},
		transaction: (fn) => fn(db),
	}
	return db
}
