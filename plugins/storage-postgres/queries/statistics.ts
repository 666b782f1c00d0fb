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

export class PlannerStatistics {
	private changedRows = 0
	private rowsAtLastAnalyze = 0
	private lastAnalyzeAt = Number.NEGATIVE_INFINITY

	/**
	 * `minIntervalMs` spaces ANALYZEs out while tables grow fast (each one samples every table); the planner scales
	 * analyzed row counts by the table's current size meanwhile.
	 */
	constructor(
		private readonly db: () => Db,
		private readonly minIntervalMs = 0,
		/**
		 * A smaller sample than PostgreSQL's default (100), for a store whose ANALYZE runs on the event loop: after a
		 * 50 MB upload (52,000 chunks) the default held the embedded service for a second.
		 */
		private readonly statisticsTarget?: number,
	) {}

	/** Analyzes one table a statement, the event loop served between them. */
	async refresh(): Promise<void> {
		this.changedRows = 0
		this.lastAnalyzeAt = performance.now()
		const db = this.db()
		if (this.statisticsTarget !== undefined) {
			await db.exec(`SET default_statistics_target = ${Math.trunc(this.statisticsTarget)}`)
		}
		try {
			for (const table of ['documents', 'chunks', 'memories']) {
				await yieldToEventLoop()
				await db.exec(`ANALYZE ${table}`)
			}
		} finally {
			if (this.statisticsTarget !== undefined) await db.exec('RESET default_statistics_target')
		}
		this.rowsAtLastAnalyze = await this.tableRows()
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
		if (performance.now() - this.lastAnalyzeAt < this.minIntervalMs) return
		await this.refresh()
	}
}
