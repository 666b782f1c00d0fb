import postgres from 'postgres'
import type { Db, Driver } from '../db.ts'

type Sql = postgres.Sql<Record<string, never>>
type SqlOrTransaction = Sql | postgres.TransactionSql<Record<string, never>>

const POOL_SIZE = 10

/** The server store: a postgres.js pool on `databaseUrl`. */
export function openPostgres(databaseUrl: string): Driver {
	const sql: Sql = postgres(databaseUrl, {
		max: POOL_SIZE,
		onnotice: () => {},
		// Every statement here is short; JIT compilation (triggered by the cost estimates of vector scans) added 5-20 ms
		// to queries that run in a few.
		connection: { jit: 'off' },
		// The query module passes jsonb parameters as JSON text; the default serializer would encode them a second time.
		types: {
			jsonb: { to: 3802, from: [3802], serialize: (json: string) => json, parse: (text: string) => JSON.parse(text) },
		},
	}) as unknown as Sql
	return {
		db: postgresDb(sql, false),
		autovacuum: true,
		jobDatabase: () => ({ kind: 'connection-string', connectionString: databaseUrl }),
		close: () => sql.end({ timeout: 5 }),
	}
}

function postgresDb(sql: SqlOrTransaction, inTransaction: boolean): Db {
	const db: Db = {
		query: async <T>(text: string, params: unknown[] = []) =>
			(await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[])) as unknown as T[],
		exec: async (statements) => {
			await sql.unsafe(statements)
		},
		transaction: <T>(fn: (tx: Db) => Promise<T>) =>
			inTransaction ? fn(db) : ((sql as Sql).begin((tx) => fn(postgresDb(tx, true))) as Promise<T>),
	}
	return db
}
