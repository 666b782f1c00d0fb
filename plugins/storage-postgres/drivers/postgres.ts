import postgres from 'postgres'
import { BackgroundLane } from '../../../core/index.ts'
import { type Db, type Driver, laneDb } from '../db.ts'

type Sql = postgres.Sql<Record<string, never>>
type SqlOrTransaction = Sql | postgres.TransactionSql<Record<string, never>>

const POOL_SIZE = 10

/** Background statements at once: the rest of the pool stays free for requests. */
const BACKGROUND_BUDGET = POOL_SIZE - 2

/**
 * Distinct statement texts prepared at most. The service's own fixed statements are about a hundred; texts built
 * from users' filters vary without bound, and each prepared one holds memory in every connection until it is recycled.
 */
export const MAX_PREPARED_TEXTS = 256

/** The server store: a postgres.js pool on `databaseUrl`. */
export function openPostgres(databaseUrl: string): Driver {
	const sql: Sql = postgres(databaseUrl, {
		max: POOL_SIZE,
		onnotice: () => {},
		connection: {
			// Every statement here is short; JIT compilation (triggered by the cost estimates of vector scans) added 5-20
			// ms to queries that run in a few.
			jit: 'off',
			// Prepared statements skip parsing, but each execution is still planned for its parameters: a search in a
			// small container and one in a large one need different plans (exact scan against the HNSW index).
			plan_cache_mode: 'force_custom_plan',
		},
		// The query module passes jsonb parameters as JSON text; the default serializer would encode them a second time.
		types: {
			jsonb: { to: 3802, from: [3802], serialize: (json: string) => json, parse: (text: string) => JSON.parse(text) },
		},
	}) as unknown as Sql
	const prepared = new Set<string>()
	return {
		db: laneDb(postgresDb(sql, false, prepared), new BackgroundLane(BACKGROUND_BUDGET)),
		autovacuum: true,
		jobDatabase: () => ({ kind: 'connection-string', connectionString: databaseUrl }),
		close: () => sql.end({ timeout: 5 }),
	}
}

/**
 * `prepared` holds the texts run as prepared statements: parsed once per connection, not once per execution, which
 * raised the pipeline's throughput by 15-30% (the statements of a memory formation are long).
 */
function postgresDb(sql: SqlOrTransaction, inTransaction: boolean, prepared: Set<string>): Db {
	const prepare = (text: string) => {
		if (prepared.size < MAX_PREPARED_TEXTS) prepared.add(text)
		return prepared.has(text)
	}
	const db: Db = {
		query: async <T>(text: string, params: unknown[] = []) =>
			(await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
				prepare: prepare(text),
			})) as unknown as T[],
		exec: async (statements) => {
			await sql.unsafe(statements)
		},
		transaction: <T>(fn: (tx: Db) => Promise<T>) =>
			inTransaction ? fn(db) : ((sql as Sql).begin((tx) => fn(postgresDb(tx, true, prepared))) as Promise<T>),
	}
	return db
}
