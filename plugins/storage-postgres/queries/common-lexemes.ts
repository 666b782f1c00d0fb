import type { Db } from '../db.ts'

/**
 * The postings of a word's GIN entry above which its own tier is left out once the tiers of several words have found
 * enough rows: a bitmap of them all is built before the tier's cut applies (about 0.3 ms per 1,000 at 1M chunks).
 */
export const COMMON_POSTINGS = 10_000

export type TextTable = 'chunks' | 'memories'

/** How long a table's common lexemes are used before they are read again (in the background). */
const MAX_AGE_MS = 60_000

/**
 * The lexemes `table`'s statistics (`most_common_elems` of tsv, times the table's rows) count more than COMMON_POSTINGS
 * of. A word they do not list (up to ten lexemes per unit of statistics target are) is not common.
 */
export async function readCommonLexemes(db: Db, table: TextTable): Promise<string[]> {
	const rows = await db.query<{ lexeme: string }>(
		`SELECT e.lexeme FROM pg_class t
		JOIN pg_stats s ON s.schemaname = t.relnamespace::regnamespace::name AND s.tablename = t.relname AND s.attname = 'tsv'
		CROSS JOIN unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, frequency)
		WHERE t.oid = $1::regclass AND e.lexeme IS NOT NULL AND e.frequency * t.reltuples > $2`,
		[table, COMMON_POSTINGS],
	)
	return rows.map((row) => row.lexeme)
}

/**
 * A table's common lexemes for the full-text search (text-candidates.ts), read at most once a minute and in the
 * background: a search never waits for the statistics (read inline, the pg_stats view cost every search 0.6 ms), and
 * until the first read, or when one fails, it knows none, which costs time and never a candidate.
 */
export class CommonLexemes {
	private known: { lexemes: string[]; readAt: number } | undefined
	private reading: Promise<void> | undefined

	constructor(
		private readonly db: () => Db,
		private readonly table: TextTable,
	) {}

	/** The lexemes as last read; starts a read when there is none or it is older than a minute. */
	now(): string[] {
		if (!this.known || performance.now() - this.known.readAt > MAX_AGE_MS) this.read()
		return this.known?.lexemes ?? []
	}

	/** Settles when the read in flight (if any) has. */
	async settled(): Promise<void> {
		await this.reading
	}

	private read(): void {
		if (this.reading) return
		this.reading = readCommonLexemes(this.db(), this.table)
			.then((lexemes) => {
				this.known = { lexemes, readAt: performance.now() }
			})
			.catch(() => {})
			.finally(() => {
				this.reading = undefined
			})
	}
}
