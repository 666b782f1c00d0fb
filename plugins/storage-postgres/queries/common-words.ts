import type { Db } from '../db.ts'

/**
 * The postings of a word's GIN entry above which its tiers wait for the tiers of rarer words: a bitmap of them all is
 * built before a tier's cut applies (about 0.3 ms per 1,000 at 1M chunks).
 */
export const COMMON_POSTINGS = 10_000

export type TextTable = 'chunks' | 'memories'

/** How long a table's common lexemes are used before they are read again (in the background). */
const MAX_AGE_MS = 60_000

/** Query words whose lexemes are remembered; past this the oldest go. */
const MAX_REMEMBERED_WORDS = 10_000

/**
 * The lexemes `table`'s statistics (`most_common_elems` of tsv, times the table's rows) count more than COMMON_POSTINGS
 * of. A word they do not list (up to ten lexemes per unit of statistics target are) is not common.
 */
async function readCommonLexemes(db: Db, table: TextTable): Promise<Set<string>> {
	const rows = await db.query<{ lexeme: string }>(
		`SELECT e.lexeme FROM pg_class t
		JOIN pg_stats s ON s.schemaname = t.relnamespace::regnamespace::name AND s.tablename = t.relname AND s.attname = 'tsv'
		CROSS JOIN unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, frequency)
		WHERE t.oid = $1::regclass AND e.lexeme IS NOT NULL AND e.frequency * t.reltuples > $2`,
		[table, COMMON_POSTINGS],
	)
	return new Set(rows.map((row) => row.lexeme))
}

/**
 * The english configuration's lexeme of each query word (null for a stopword), by PostgreSQL's own stemmer, asked once
 * per word for every table and store of the process (a word's lexeme depends on nothing else); a word being asked
 * waits for that answer.
 */
const lexemes = new Map<string, Promise<string | null>>()

function lexemesOf(db: Db, words: string[]): Promise<(string | null)[]> {
	const known = words.map((word) => lexemes.get(word))
	const unknown = words.filter((_, i) => known[i] === undefined)
	if (unknown.length === 0) return Promise.all(known as Promise<string | null>[])
	const read = db
		.query<{ word: string; lexeme: string | null }>(
			`SELECT w AS word, (tsvector_to_array(to_tsvector('english', w)))[1] AS lexeme FROM unnest($1::text[]) AS w`,
			[unknown],
		)
		.then((rows) => new Map(rows.map((row) => [row.word, row.lexeme])))
	read.catch(() => {
		for (const word of unknown) lexemes.delete(word)
	})
	return Promise.all(
		words.map(
			(word, i) =>
				known[i] ??
				remember(
					word,
					read.then((found) => found.get(word) ?? null),
				),
		),
	)
}

function remember(word: string, lexeme: Promise<string | null>): Promise<string | null> {
	if (lexemes.size >= MAX_REMEMBERED_WORDS) lexemes.delete(lexemes.keys().next().value!)
	lexemes.set(word, lexeme)
	return lexeme
}

/** The words of `words` (lowercased) whose lexemes are among `common`. */
async function commonAmong(db: Db, common: Set<string>, words: string[]): Promise<Set<string>> {
	if (common.size === 0) return new Set()
	const lowered = [...new Set(words.map((word) => word.toLowerCase()))]
	const found = await lexemesOf(db, lowered)
	return new Set(lowered.filter((_, i) => common.has(found[i] ?? '')))
}

/** The words (lowercased) of `words` whose lexeme `table`'s statistics count as common, read now (for plans). */
export async function readCommonWords(db: Db, table: TextTable, words: string[]): Promise<Set<string>> {
	return commonAmong(db, await readCommonLexemes(db, table), words)
}

/**
 * Which query words a table counts as common, for the full-text search (text-candidates.ts). The common lexemes are
 * read at most once a minute and in the background: a search never waits for the statistics (read inline, the
 * pg_stats view cost every search 0.6 ms), and until the first read, or when one fails, no word is common, which
 * costs time and never a candidate.
 */
export class CommonWords {
	private known: { lexemes: Set<string>; readAt: number } | undefined
	private reading: Promise<void> | undefined

	constructor(
		private readonly db: () => Db,
		private readonly table: TextTable,
	) {}

	/** The words (lowercased) of `words` whose lexemes are common; none while the statistics are unread. */
	among(words: string[]): Promise<Set<string>> {
		return commonAmong(this.db(), this.commonLexemes(), words)
	}

	/** Settles when the read of the statistics in flight (if any) has. */
	async settled(): Promise<void> {
		await this.reading
	}

	/** The lexemes as last read; starts a read when there is none or it is older than a minute. */
	private commonLexemes(): Set<string> {
		if (!this.known || performance.now() - this.known.readAt > MAX_AGE_MS) this.read()
		return this.known?.lexemes ?? new Set()
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
