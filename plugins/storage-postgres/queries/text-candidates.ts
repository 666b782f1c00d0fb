import type { Params } from './params.ts'

/**
 * The candidate sets of the full-text searches (chunks and memories). A scope with at most PLAIN_RANK_ROWS rows
 * matching any of the words is ranked exactly, in one scan (`plain`); in a larger one, ranking every match costs
 * as much as the most common word allows (thousands of rows at 100k), so only the union of the match tiers
 * (`tiers`: all the words, at least k of them, each word alone; see `matchTiers`) is ranked, each cut by the GIN
 * index at `limit` rows (half that for a single word; never below MIN_TIER_ROWS) before any row is ranked. Rows with
 * more of the words, and every row of a rare word, are still among the candidates; rows holding only common words are
 * sampled (in table order). Rows read stay below (number of tiers) x (cut) whatever the words.
 */

/** How many query words reach the full-text query at most. */
const MAX_TERMS = 64

/** The most AND groups an "at least k of the words" tier of the full-text search may take. */
const MAX_COMBINATIONS = 28

/** The fewest rows a tier of the full-text search is cut at, so small limits still rank a fair sample. */
const MIN_TIER_ROWS = 50

/** The most single-word tiers of the full-text search (the last one takes the remaining words together). */
const MAX_WORD_TIERS = 16

/**
 * The most rows (chunks or memories) matching any word a scope's full-text search ranks in one scan, exactly; more go
 * to the match tiers, which read up to (tiers x cut) rows: 450 for five content words at the smallest cut.
 */
export const PLAIN_RANK_ROWS = 500

/** PostgreSQL's english stopword list (tsearch_data/english.stop): words the english configuration drops. */
const STOPWORDS = new Set(
	(
		'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself ' +
		'it its itself they them their theirs themselves what which who whom this that these those am is are was were be ' +
		'been being have has had having do does did doing a an the and but if or because as until while of at by for with ' +
		'about against between into through during before after above below to from up down in out on off over under ' +
		'again further then once here there when where why how all any both each few more most other some such no nor ' +
		'not only own same so than too very s t can will just don should now'
	).split(' '),
)

/**
 * The tsquery texts (with how many of the words each match needs) whose matches, each cut, make the candidate set
 * of a full-text search, from the most to the least demanding: all the words; at least k of them for k from one
 * fewer down to two (as long as that takes at most MAX_COMBINATIONS AND groups), the groups holding a word not in
 * `common` first and the groups of `common` words only after them; then each word alone (the first
 * MAX_WORD_TIERS - 1; the rest together). Stopwords are left out of the tiers (PostgreSQL's english configuration
 * drops them anyway).
 */
export function matchTiers(
	words: string[],
	common: ReadonlySet<string> = new Set(),
): { query: string; words: number; common: boolean }[] {
	const content = [...new Set(words.map((word) => word.toLowerCase()))].filter((word) => !STOPWORDS.has(word))
	const tierWords = content.length > 0 ? content : words
	const tiers: { query: string; words: number; common: boolean }[] = []
	const tier = (groups: string[][], k: number) => {
		if (groups.length === 0) return
		const query =
			groups.length === 1 ? groups[0]!.join(' & ') : groups.map((group) => `(${group.join(' & ')})`).join(' | ')
		tiers.push({ query, words: k, common: groups.every(ofCommon) })
	}
	const ofCommon = (group: string[]) => group.every((word) => common.has(word))
	if (tierWords.length > 1) tier([tierWords], tierWords.length)
	for (let k = tierWords.length - 1; k >= 2; k--) {
		const groups = combinations(tierWords, k, MAX_COMBINATIONS + 1)
		if (groups.length <= MAX_COMBINATIONS) {
			tier(
				groups.filter((group) => !ofCommon(group)),
				k,
			)
			tier(groups.filter(ofCommon), k)
		}
	}
	const alone = tierWords.slice(0, MAX_WORD_TIERS - 1)
	for (const word of alone) tier([[word]], 1)
	const rest = tierWords.slice(alone.length)
	if (rest.length > 0) tiers.push({ query: rest.join(' | '), words: 1, common: ofCommon(rest) })
	return tiers
}

/** The k-element subsets of `items` in order, stopping once `max` have been made. */
function combinations<T>(items: T[], k: number, max: number): T[][] {
	const result: T[][] = []
	const pick = (start: number, chosen: T[]) => {
		if (result.length >= max) return
		if (chosen.length === k) {
			result.push(chosen)
			return
		}
		for (let i = start; i <= items.length - (k - chosen.length); i++) pick(i + 1, [...chosen, items[i]!])
	}
	pick(0, [])
	return result
}

/** The query's words reduced to letters and digits, so a tsquery built from them can only hold words and ' | '. */
export function queryWords(terms: string[]): string[] {
	return terms
		.flatMap((term) => term.split(/[^\p{L}\p{N}]+/u))
		.filter((word) => word.length > 0)
		.slice(0, MAX_TERMS)
}

/**
 * The share of the query's lexemes (`ql.lexemes`) the row `alias` holds, as `coverage`: ts_delete drops the ones it
 * holds, one function call per row where counting its lexemes took a subquery each.
 */
export const lexemeCoverage = (alias: string) =>
	`(length(${alias}.tsv) - length(ts_delete(${alias}.tsv, ql.lexemes)))::float8 / greatest(cardinality(ql.lexemes), 1) AS coverage`

/** Which candidate set a full-text statement ranks: every match (`plain`, counted) or the match tiers' (`tiers`). */
export type Candidates = 'plain' | 'tiers'

/**
 * A scan of a candidate set: the rows matching a tsquery text, cut at `rows` by the index before any is ranked.
 * `several` for a tier of several words (all of them, or at least k), not for the tier of one word (or, past
 * MAX_WORD_TIERS, of the remaining words together) nor the plain scan; `common` when it holds common words only.
 */
interface TextScan {
	query: string
	rows: number
	several: boolean
	common: boolean
}

function scans(candidates: Candidates, words: string[], limit: number, common: ReadonlySet<string>): TextScan[] {
	// The plain scan is cut one past PLAIN_RANK_ROWS, so that a larger scope shows.
	if (candidates === 'plain') {
		return [{ query: words.join(' | '), rows: PLAIN_RANK_ROWS + 1, several: false, common: false }]
	}
	return matchTiers(words, common).map((tier) => ({
		query: tier.query,
		rows: Math.max(tier.words > 1 ? limit : Math.ceil(limit / 2), MIN_TIER_ROWS),
		several: tier.words > 1,
		common: tier.common,
	}))
}

/**
 * The candidate set as a UNION of scans over `from` (the row alias `alias`) restricted by `where`, each row with its id
 * and `columns` (a `rank` at least, given the tsquery of any of the words), to be named `candidates`. Words are
 * reduced to letters and digits, so the tsquery texts can only hold words, parentheses, ' & ' and ' | '.
 *
 * GIN reads every posting of the words a match needs one of before a tier's cut applies, which for `common` words
 * (the table's statistics count them often, common-words.ts) costs far more than the rows kept. Rows holding more of
 * the words rank first, so once the tiers of more words have found as many rows as a tier would take, it is left
 * out: an "at least k" tier (whose groups of common words only come after the groups holding a rarer word), and the
 * tier of a common word (a rare word's tier always runs: its rows may hold no other word). Each gate is a one-time
 * filter; a closed tier reads nothing.
 */
export function textCandidates(
	params: Params,
	candidates: Candidates,
	{ words, limit, common }: { words: string[]; limit: number; common: ReadonlySet<string> },
	rows: { alias: string; from: string; where: string; columns: (anyWord: string) => string },
): string {
	const cuts = new Map<number, string>()
	const cut = (count: number) => cuts.get(count) ?? cuts.set(count, params.add(count)).get(count)!
	const anyWord = `to_tsquery('english', ${params.add(words.join(' | '))})`
	const scan = (textScan: TextScan, gate = '') => `SELECT ${rows.alias}.id, ${rows.columns(anyWord)}
			FROM ${rows.from} WHERE ${rows.alias}.tsv @@ to_tsquery('english', ${params.add(textScan.query)}) AND ${rows.where}${gate}
			LIMIT ${cut(textScan.rows)}`
	const scanned = scans(candidates, words, limit, common)
	const several = scanned.filter((textScan) => textScan.several)
	if (several.length === 0) return scanned.map((textScan) => `(${scan(textScan)})`).join(' UNION ')
	const found = (tiers: number) =>
		`(SELECT count(*) FROM (${several
			.slice(0, tiers)
			.map((_, i) => `SELECT id FROM tier${i}`)
			.join(' UNION ')}) AS found)`
	const named = several.map(
		(textScan, i) =>
			`tier${i} AS MATERIALIZED (${scan(textScan, i === 0 ? '' : ` AND ${found(i)} < ${cut(textScan.rows)}`)})`,
	)
	const ones = scanned.filter((textScan) => !textScan.several)
	if (ones.some((textScan) => textScan.common)) {
		named.push(`several AS MATERIALIZED (SELECT ${found(several.length)} >= ${cut(several[0]!.rows)} AS enough)`)
	}
	const oneScans = ones.map(
		(textScan) => `(${scan(textScan, textScan.common ? ' AND NOT (SELECT enough FROM several)' : '')})`,
	)
	return `WITH ${named.join(',\n')}
		${[...several.map((_, i) => `SELECT * FROM tier${i}`), ...oneScans].join(' UNION ')}`
}

/** With the plain candidate set, the column saying how many candidates there were (`matched`); else nothing. */
export function matchedColumn(candidates: Candidates): string {
	return candidates === 'plain' ? ', (SELECT count(*) FROM candidates)::int AS matched' : ''
}

/** The plain set's answer, or null when the scope matched more than the plain scan ranks: then the tiers answer. */
export function plainAnswer<Row extends { matched: number }>(rows: Row[]): Row[] | null {
	return (rows[0]?.matched ?? 0) > PLAIN_RANK_ROWS ? null : rows
}
