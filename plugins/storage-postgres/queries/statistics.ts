import { yieldToEventLoop } from '../../../core/index.ts'
import type { Db } from '../db.ts'

/**
 * PGlite runs no autovacuum, so an embedded store would plan every query with the statistics of an empty table (a
 * sort of the whole org instead of the HNSW index, for instance); PostgreSQL's autovacuum analyzes late. This
 * refreshes them the way autovacuum's analyze does by default: after 50 rows plus a tenth of the table have changed.
 */
const SAVED_STATE_KEY = 'planner-statistics'

/** The embedded store's ANALYZE sample, in PostgreSQL's units (300 rows per unit; the default is 100). */
export const EMBEDDED_STATISTICS_TARGET = 30

/** The tables the service refreshes statistics of, in order. */
const TABLES = ['documents', 'chunks', 'memories'] as const

export interface StatisticsOptions {
	/**
	 * Spaces ANALYZEs out while tables grow fast (each one samples every table); the planner scales analyzed row
	 * counts by the table's current size meanwhile.
	 */
	minIntervalMs?: number
	/**
	 * A smaller sample than PostgreSQL's default (100), for a store whose ANALYZE runs on the event loop: after a
	 * 50 MB upload (52,000 chunks) the default held the embedded service for a second.
	 */
	statisticsTarget?: number
	/**
	 * Moves the entries of each table's GIN indexes waiting in their pending lists into the indexes, with every
	 * refresh and at start-up: on a store without autovacuum (which does it on PostgreSQL, ANALYZE does not) they
	 * are never moved until a list outgrows its limit, and every full-text search reads the whole list
	 * (docs/postgres-tuning.md).
	 */
	cleanPendingLists?: boolean
}

export class PlannerStatistics {
	private changedRows = 0
	private rowsAtLastAnalyze = 0
	private lastAnalyzeAt = Number.NEGATIVE_INFINITY

	constructor(
		private readonly db: () => Db,
		private readonly options: StatisticsOptions = {},
	) {}

	/** Analyzes one table a statement, the event loop served between them. */
	async refresh(): Promise<void> {
		this.changedRows = 0
		this.lastAnalyzeAt = performance.now()
		const db = this.db()
		const { statisticsTarget } = this.options
		if (statisticsTarget !== undefined) {
			await db.exec(`SET default_statistics_target = ${Math.trunc(statisticsTarget)}`)
		}
		try {
			for (const table of TABLES) {
				await yieldToEventLoop()
				await db.exec(`ANALYZE ${table}`)
			}
		} finally {
			if (statisticsTarget !== undefined) await db.exec('RESET default_statistics_target')
		}
		await this.cleanPendingLists()
		this.rowsAtLastAnalyze = await this.tableRows()
	}

	/** With `cleanPendingLists`: empties the pending lists of the tables' GIN indexes, in one statement. */
	private async cleanPendingLists(): Promise<void> {
		if (!this.options.cleanPendingLists) return
		await this.db().query(
			`SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i
			JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
			WHERE i.indrelid = ANY($1::regclass[]) AND am.amname = 'gin'`,
			[TABLES],
		)
	}

	private async tableRows(): Promise<number> {
		const [row] = await this.db().query<{ rows: number }>(
			"SELECT sum(greatest(reltuples, 0))::float8 AS rows FROM pg_class WHERE oid IN ('chunks'::regclass, 'memories'::regclass)",
		)
		return row?.rows ?? 0
	}

	/** At start-up on PostgreSQL, where autovacuum analyzes too: only learns the table sizes. */
	async track(): Promise<void> {
		this.rowsAtLastAnalyze = await this.tableRows()
	}

	/**
	 * At start-up. Statistics are kept on disk, so a store closed cleanly (which saved its count of changed rows) needs
	 * no ANALYZE: on a large store that sample is the biggest part of an embedded cold start. After a crash, or on a
	 * store never analyzed, it runs.
	 */
	async resume(): Promise<void> {
		const [saved] = await this.db().query<{ value: { changedRows: number } }>('SELECT value FROM meta WHERE key = $1', [
			SAVED_STATE_KEY,
		])
		const [row] = await this.db().query<{ rows: number; never: boolean }>(
			"SELECT sum(greatest(reltuples, 0))::float8 AS rows, bool_or(reltuples < 0) AS never FROM pg_class WHERE oid IN ('chunks'::regclass, 'memories'::regclass)",
		)
		if (!saved || !row || row.never) return this.refresh()
		// Until the next clean close, a crash must not leave a count that is no longer true.
		await this.db().query('DELETE FROM meta WHERE key = $1', [SAVED_STATE_KEY])
		await this.cleanPendingLists()
		this.rowsAtLastAnalyze = row.rows
		await this.rowsChanged(saved.value.changedRows)
	}

	/** At a clean close: the rows changed since the last ANALYZE, for `resume`. */
	async save(): Promise<void> {
		await this.db().query(
			`INSERT INTO meta (key, value) VALUES ($1, $2::jsonb)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()`,
			[SAVED_STATE_KEY, JSON.stringify({ changedRows: this.changedRows })],
		)
	}

	async rowsChanged(count: number): Promise<void> {
		this.changedRows += count
		if (this.changedRows < 50 + 0.1 * this.rowsAtLastAnalyze) return
		if (performance.now() - this.lastAnalyzeAt < (this.options.minIntervalMs ?? 0)) return
		await this.refresh()
	}
}
