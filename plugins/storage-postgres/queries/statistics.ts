import type { Db } from '../db.ts'

/**
 * PGlite runs no autovacuum, so an embedded store would plan every query with the statistics of an empty table (a
 * sort of the whole org instead of the HNSW index, for instance). This refreshes them the way autovacuum's analyze
 * does by default: after 50 rows plus a tenth of the table have changed.
 */
export class PlannerStatistics {
	private changedRows = 0
	private rowsAtLastAnalyze = 0

	constructor(private readonly db: () => Db) {}

	async refresh(): Promise<void> {
		this.changedRows = 0
		await this.db().exec('ANALYZE documents, chunks')
		const [row] = await this.db().query<{ rows: number }>(
			"SELECT greatest(reltuples, 0)::float8 AS rows FROM pg_class WHERE oid = 'chunks'::regclass",
		)
		this.rowsAtLastAnalyze = row?.rows ?? 0
	}

	async rowsChanged(count: number): Promise<void> {
		this.changedRows += count
		if (this.changedRows >= 50 + 0.1 * this.rowsAtLastAnalyze) await this.refresh()
	}
}
