/**
 * HNSW build parameters against insert cost and recall, on PostgreSQL: N embedded texts (the local embedder) in a
 * bare table; for each (m, ef_construction) the index is built, then timed inserts of new rows (what the pipeline
 * pays per chunk or memory) and recall@10 of 200 queries against the exact answer, at ef_search 40, 100 and 200, and
 * of the best 10 of 50 candidates at ef_search 40 and 100 (what the chunk search asks for). Chunks use m 16 /
 * ef_construction 64, memories m 8 / 32 (schema.ts, schema-memories.ts).
 *
 * `--corpus generated` (the default): Zipf text like the other benches, queries of the same kind. `--corpus system`:
 * real English, passages of this machine's manual pages and package documentation (lib/system-text.ts), queries of
 * ten words from passages not in the table; skipped when the machine has too little of it.
 *
 *   BENCH_DATABASE_URL=... bun bench/vector-index.ts [--quick] [--corpus generated|system] [--rows 100000]
 */
import postgres from 'postgres'
import { vectorParam } from '../plugins/storage-postgres/queries/params.ts'
import { TextGenerator } from '../testkit/text.ts'
import { BENCH_DATABASE_URL } from './lib/database.ts'
import { printMachine } from './lib/machine.ts'
import { median } from './lib/stats.ts'
import { createStore, flagValue, openPlugins, QUICK } from './lib/store.ts'
import { systemTextPassages } from './lib/system-text.ts'
import { fixed, heading, note, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const argv = process.argv.slice(2)
const ROWS = Number(flagValue(argv, 'rows') ?? (QUICK ? 20_000 : 100_000))
const CORPUS = flagValue(argv, 'corpus') === 'system' ? 'system' : 'generated'
const QUERIES = 200
const INSERTS = 400
const QUERY_WORDS = 10
const EF_SEARCH = [40, 100, 200]
const CANDIDATE_EF_SEARCH = [40, 100]
const CONFIGS = [
	{ m: 16, efConstruction: 64 },
	{ m: 16, efConstruction: 32 },
	{ m: 8, efConstruction: 32 },
	{ m: 8, efConstruction: 16 },
]

async function main() {
	heading('Vector index parameters (HNSW, cosine)')
	if (!BENCH_DATABASE_URL) {
		note('PostgreSQL: skipped (set BENCH_DATABASE_URL).')
		return
	}
	const texts = await corpus()
	if (!texts) {
		note(
			`Real text: skipped (this machine's manual pages and documentation give fewer than ${ROWS + INSERTS + QUERIES} passages).`,
		)
		return
	}
	await printMachine(BENCH_DATABASE_URL)
	const store = await createStore('postgres')
	const plugins = await openPlugins(store)
	const sql = postgres(store.databaseUrl!, { max: 1, onnotice: () => {} })
	try {
		const embed = async (texts: string[]) => {
			const vectors: Float32Array[] = []
			for (let i = 0; i < texts.length; i += 512) {
				vectors.push(...(await plugins.embedder.embed(texts.slice(i, i + 512), 'document')))
			}
			return vectors.map(vectorParam)
		}
		const rows = await embed(texts.rows)
		const inserts = await embed(texts.inserts)
		const queries = await embed(texts.queries)
		await sql.unsafe(
			`CREATE TABLE vectors (id int PRIMARY KEY, embedding vector(${plugins.embedder.space.dimensions}))`,
		)
		for (let i = 0; i < rows.length; i += 5_000) {
			const slice = rows.slice(i, i + 5_000)
			await sql.unsafe(
				'INSERT INTO vectors SELECT i + $1, v::vector FROM unnest($2::text[]) WITH ORDINALITY AS x(v, i)',
				[i, slice],
			)
		}
		await sql.unsafe('VACUUM ANALYZE vectors')
		/** The 10 nearest; with `candidates`, the best 10 of that many, as the service's chunk search asks (>= 50). */
		const nearest = async (query: string, exact: boolean, efSearch: number, candidates = 10) =>
			sql.begin(async (tx) => {
				await tx.unsafe(`SET LOCAL hnsw.ef_search = ${efSearch}`)
				await tx.unsafe('SET LOCAL hnsw.iterative_scan = relaxed_order')
				if (exact) await tx.unsafe('SET LOCAL enable_indexscan = off')
				const found = await tx.unsafe<{ id: number }[]>(
					`WITH nearest AS MATERIALIZED (
						SELECT id, embedding <=> $1::vector AS distance FROM vectors ORDER BY distance LIMIT ${candidates}
					)
					SELECT id FROM nearest ORDER BY distance LIMIT 10`,
					[query],
				)
				return found.map((row) => row.id)
			})
		const recall = async (efSearch: number, candidates = 10) => {
			let hits = 0
			const latencies: number[] = []
			for (const [i, query] of queries.entries()) {
				const started = performance.now()
				const found = await nearest(query, false, efSearch, candidates)
				latencies.push(performance.now() - started)
				const truth = new Set(exact[i])
				hits += found.filter((id) => truth.has(id)).length
			}
			return [fixed(hits / (queries.length * 10), 3), fixed(median(latencies), 2)]
		}
		const exact = await Promise.all(queries.map((query) => nearest(query, true, 40)))

		const table: (string | number)[][] = []
		for (const config of CONFIGS) {
			await sql.unsafe('DROP INDEX IF EXISTS vectors_hnsw')
			const building = performance.now()
			await sql.unsafe(
				`CREATE INDEX vectors_hnsw ON vectors USING hnsw (embedding vector_cosine_ops) WITH (m = ${config.m}, ef_construction = ${config.efConstruction})`,
			)
			const buildSeconds = (performance.now() - building) / 1000
			// Inserts into the built graph, ten rows per statement as a formation writes them, then removed again.
			const perRow: number[] = []
			for (let i = 0; i < inserts.length; i += 10) {
				const started = performance.now()
				await sql.unsafe(
					'INSERT INTO vectors SELECT 1000000000 + $1 + i, v::vector FROM unnest($2::text[]) WITH ORDINALITY AS x(v, i)',
					[i, inserts.slice(i, i + 10)],
				)
				perRow.push((performance.now() - started) / 10)
			}
			await sql.unsafe('DELETE FROM vectors WHERE id >= 1000000000')
			const row: (string | number)[] = [`m ${config.m}, ef_construction ${config.efConstruction}`, fixed(buildSeconds)]
			row.push(fixed(median(perRow), 3))
			for (const efSearch of EF_SEARCH) row.push(...(await recall(efSearch)))
			for (const efSearch of CANDIDATE_EF_SEARCH) row.push(...(await recall(efSearch, 50)))
			table.push(row)
		}
		printTable(
			`${ROWS.toLocaleString('en')} vectors of ${plugins.embedder.space.dimensions} dimensions, ${CORPUS === 'system' ? 'real text (manual pages and package documentation)' : 'generated text'}`,
			[
				'index',
				'build (s)',
				'insert ms/row (median)',
				...EF_SEARCH.flatMap((ef) => [`recall@10 ef_search ${ef}`, 'query ms (median)']),
				...CANDIDATE_EF_SEARCH.flatMap((ef) => [`recall@10 of 50 candidates, ef_search ${ef}`, 'query ms (median)']),
			],
			table,
		)
	} finally {
		await sql.end({ timeout: 1 })
		await plugins.stop()
		await store.dispose()
	}
}

/** The table's texts, the inserted ones and the queries, all different. */
async function corpus(): Promise<{ rows: string[]; inserts: string[]; queries: string[] } | null> {
	if (CORPUS === 'generated') {
		const generator = new TextGenerator(11, await loadVocabulary())
		const make = (count: number) => Array.from({ length: count }, () => generator.memory())
		return { rows: make(ROWS), inserts: make(INSERTS), queries: make(QUERIES) }
	}
	const passages = systemTextPassages(ROWS + INSERTS + QUERIES)
	if (!passages) return null
	return {
		rows: passages.slice(0, ROWS),
		inserts: passages.slice(ROWS, ROWS + INSERTS),
		queries: passages.slice(ROWS + INSERTS).map((passage, i) => {
			const words = passage.split(' ')
			const start = (i * 7) % Math.max(1, words.length - QUERY_WORDS)
			return words.slice(start, start + QUERY_WORDS).join(' ')
		}),
	}
}

await main()
