import { mkdirSync } from 'node:fs'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import type { Db, Driver } from '../db.ts'

/**
 * The embedded store: PGlite with pgvector, persisted in `dataDir` (`memory://` keeps it in memory), with a buffer
 * cache of `sharedBuffers` (PostgreSQL units, e.g. `64MB`).
 */
export async function openPglite(dataDir: string, sharedBuffers?: string): Promise<Driver> {
	if (sharedBuffers !== undefined && !/^\d+(kB|MB|GB)$/.test(sharedBuffers)) {
		throw new Error(`shared buffers must be a size such as 64MB, not "${sharedBuffers}"`)
	}
	// A path (not a `memory://`-style URL) may name directories that do not exist yet.
	if (!/^[a-z]+:\/\//.test(dataDir)) mkdirSync(dataDir, { recursive: true })
	const pg = await PGlite.create({
		dataDir,
		extensions: { vector },
		...(sharedBuffers ? { postgresqlconf: `shared_buffers = ${sharedBuffers}` } : {}),
	})
	return {
		db: pgliteDb(pg),
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
	return {
		query: async <T>(text: string, params: unknown[] = []) => (await pg.query<T>(text, params)).rows,
		exec: async (statements) => {
			await pg.exec(statements)
		},
		transaction: (fn) => pg.transaction((tx) => fn(transactionDb(tx))),
	}
}

function transactionDb(tx: Transaction): Db {
	const db: Db = {
		query: async <T>(text: string, params: unknown[] = []) => (await tx.query<T>(text, params)).rows,
		exec: async (statements) => {
			await tx.exec(statements)
		},
		transaction: (fn) => fn(db),
	}
	return db
}
