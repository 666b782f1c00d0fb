import type { BackgroundLane, JobDatabase } from '../../core/index.ts'

export type Row = Record<string, unknown>

/**
 * The one database surface the query module is written against, so the embedded and the server driver run the same SQL.
 * Parameters use `$n` placeholders; a jsonb parameter is always passed as its JSON text.
 */
export interface Db {
	query<T = Row>(text: string, params?: unknown[]): Promise<T[]>
	/** Several statements separated by semicolons, without parameters. */
	exec(statements: string): Promise<void>
	/** Runs `fn` in one transaction; a nested call joins the outer transaction. */
	transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>
}

/** An open connection (or pool) and what only the driver knows about it. */
export interface Driver {
	db: Db
	/** False for PGlite, which has no autovacuum: the plugin then keeps planner statistics fresh itself. */
	autovacuum: boolean
	jobDatabase(): JobDatabase
	close(): Promise<void>
}

/**
 * `db` with its background statements and transactions admitted through `lane` (searches go first); a transaction's
 * own statements run on the connection it already holds.
 */
export function laneDb(db: Db, lane: BackgroundLane): Db {
	return {
		query: (text, params) => lane.run(() => db.query(text, params)),
		exec: (statements) => lane.run(() => db.exec(statements)),
		transaction: (fn) => lane.run(() => db.transaction(fn)),
	}
}
