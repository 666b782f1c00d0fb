/**
 * How well the calibrated similarity of memory search (core/search/calibration.ts) separates relevant from
 * unrelated memories at the API's default threshold of 0.6, with the local embedder:
 * - LoCoMo: each question against the session observations of its conversation (the observations stand in for a
 *   container's memories); relevant = an observation of an evidence turn.
 * - hand-made examples: a few memories and questions whose answers are known.
 * The score is computed as memory search computes it: query as written and in the third person, without the
 * container's common direction (container-focus.ts), baseline from the reference statements plus a sample of the
 * container's memories, full-text coverage from PostgreSQL's own lexemes.
 *
 *   bun bench/similarity.ts
 */
import { PGlite } from '@electric-sql/pglite'
import { createLogger } from '../core/logger.ts'
import { createCalibration, similarity } from '../core/search/calibration.ts'
import { focusOnContainer } from '../core/search/container-focus.ts'
import { memoryQuery } from '../core/search/query-view.ts'
import { embedderLocal } from '../plugins/embedder-local/index.ts'
import { LOCOMO_DIR } from './lib/locomo-data.ts'
import { printMachine } from './lib/machine.ts'
import { BENCH_EMBEDDER_CACHE } from './lib/store.ts'
import { type Cell, fixed, heading, note, printTable } from './lib/table.ts'

const THRESHOLDS = [0.4, 0.5, 0.6, 0.7, 0.8]
const SAMPLE = 60

const EXAMPLE_MEMORIES = [
	'Alex lives in Boston',
	'Alex moved to Seattle',
	'Alex works as a nurse at the city hospital',
	'Marie prefers oat milk in her cappuccino',
	'The user adopted a puppy named Max',
	'The user lives in Boston',
	'John prefers dark mode',
	'The office wifi password rotates every Monday',
]
const EXAMPLE_QUERIES: [string, string[]][] = [
	['where does Alex live', ['Alex lives in Boston', 'Alex moved to Seattle']],
	["what is Alex's job", ['Alex works as a nurse at the city hospital']],
	['what milk does Marie like', ['Marie prefers oat milk in her cappuccino']],
	['does the user have a dog', ['The user adopted a puppy named Max']],
	['where do I live', ['The user lives in Boston']],
	['what colour theme does John use', ['John prefers dark mode']],
	['quantum chromodynamics lecture notes', []],
	['weather tomorrow', []],
]

const embedder = embedderLocal({ cacheDir: BENCH_EMBEDDER_CACHE })
const pg = await PGlite.create()
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0)

async function lexemes(texts: string[]): Promise<Set<string>[]> {
	const rows = await pg.query<{ a: string[] }>(
		"SELECT tsvector_to_array(to_tsvector('english', t)) AS a FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i",
		[texts],
	)
	return rows.rows.map((row) => new Set(row.a))
}

/** Scores every memory for every query, as memory search would. */
async function scoreAll(memories: string[], queries: string[]) {
	const calibration = createCalibration(embedder, null)
	const vectors = await embedder.embed(memories, 'document')
	const memoryLexemes = await lexemes(memories)
	const sample = [...vectors].sort(() => Math.random() - 0.5).slice(0, SAMPLE)
	const scores: number[][] = []
	for (const query of queries) {
		const written = await memoryQuery(embedder, query)
		const vector = focusOnContainer(written.vector, sample)
		const [queryLexemes] = await lexemes([written.terms.join(' ')])
		const baseline = await calibration.baseline(vector, sample)
		scores.push(
			vectors.map((memory, j) => {
				const shared = [...queryLexemes!].filter((lexeme) => memoryLexemes[j]!.has(lexeme)).length
				return similarity(baseline, dot(vector, memory), queryLexemes!.size ? shared / queryLexemes!.size : 0)
			}),
		)
	}
	return scores
}

async function locomo(): Promise<Cell[][]> {
	const relevant: number[] = []
	const unrelated: number[] = []
	for (const file of ['26', '30', '41']) {
		const data = await Bun.file(`${LOCOMO_DIR}/${file}.json`).json()
		const observations: { text: string; ids: string[] }[] = []
		for (const [key, value] of Object.entries(data)) {
			if (!key.endsWith('_observation')) continue
			for (const list of Object.values(value as Record<string, [string, string | string[]][]>)) {
				for (const [text, id] of list) observations.push({ text, ids: Array.isArray(id) ? id : [id] })
			}
		}
		const questions = (data.qa as { question: string; evidence: string[]; category: number }[]).filter(
			(q) => q.category !== 5,
		)
		const scores = await scoreAll(
			observations.map((o) => o.text),
			questions.map((q) => q.question),
		)
		for (const [i, question] of questions.entries()) {
			const evidence = new Set(question.evidence)
			for (const [j, observation] of observations.entries()) {
				;(observation.ids.some((id) => evidence.has(id)) ? relevant : unrelated).push(scores[i]![j]!)
			}
		}
	}
	const share = (values: number[], t: number) => values.filter((v) => v >= t).length / values.length
	return THRESHOLDS.map((t) => [
		fixed(t),
		`${fixed(100 * share(relevant, t), 0)} %`,
		`${fixed(100 * share(unrelated, t), 1)} %`,
	])
}

async function main() {
	await printMachine(null)
	await embedder.init!({ logger: createLogger('silent'), env: {}, vectorSpace: embedder.space })
	heading('Calibrated similarity (local embedder)')
	printTable(
		'LoCoMo: share of observations at or above the threshold',
		['threshold', 'relevant', 'unrelated'],
		await locomo(),
	)
	const scores = await scoreAll(
		EXAMPLE_MEMORIES,
		EXAMPLE_QUERIES.map(([query]) => query),
	)
	const rows = EXAMPLE_QUERIES.map(([query, expected], i) => {
		const best = (filter: (memory: string) => boolean) =>
			Math.max(0, ...EXAMPLE_MEMORIES.flatMap((memory, j) => (filter(memory) ? [scores[i]![j]!] : [])))
		return [
			query,
			expected.length
				? fixed(
						best((m) => expected.includes(m)),
						2,
					)
				: '–',
			fixed(
				best((m) => !expected.includes(m)),
				2,
			),
		]
	})
	printTable('Hand-made examples: best relevant and best unrelated memory', ['query', 'relevant', 'unrelated'], rows)
	note('Container sample: 60 random memories of the container (all of them for the 8 examples).')
	await pg.close()
}

await main()
