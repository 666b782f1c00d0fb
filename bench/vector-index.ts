/**
 * HNSW build parameters against insert cost and recall, on PostgreSQL: N embedded texts (the local embedder, Zipf
 * text like the other benches) in a bare table; for each (m, ef_construction) the index is built, then timed inserts
 * of new rows (what the pipeline pays per chunk or memory) and recall@10 of 200 queries against the exact answer, at
 * ef_search 40, 64 and 100, and of the best 10 of 50 candidates at ef_search 40 (what the chunk search asks for). Chunks use m 16 / ef_construction 64, memories m 8 / 32 (schema.ts, schema-memories.ts).
 *
 *   BENCH_DATABASE_URL=... bun bench/vector-index.ts [--quick]
 */
import postgres from 'postgres'
import { vectorParam } from '../plugins/storage-postgres/queries/params.ts'
import { TextGenerator } from '../testkit/text.ts'
import { BENCH_DATABASE_URL } from './lib/database.ts'
import { printMachine } from './lib/machine.ts'
import { median } from './lib/stats.ts'
import { createStore, openPlugins, QUICK } from './lib/store.ts'
import { fixed, heading, note, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const ROWS = QUICK ? 20_000 : 100_000
const QUERIES = 200
const INSERTS = 400
const EF_SEARCH = [40, 64, 100]
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
	await printMachine(BENCH_DATABASE_URL)
	const store = await createStore('postgres')
	const plugins = await openPlugins(store)
	const sql = postgres(store.databaseUrl!, { max: 1, onnotice: () => {} })
	try {
		const generator = new TextGenerator(11, await loadVocabulary())
		const embed = async (count: number, make: () => string) => {
			const texts = Array.from({ length: count }, make)
			const vectors: Float32Array[] = []
			for (let i = 0; i < texts.length; i += 512) {
				vectors.push(...(await plugins.embedder.embed(texts.slice(i, i + 512), 'document')))
			}
			return vectors.map(vectorParam)
		}
		const rows = await embed(ROWS, () => generator.memory())
		const inserts = await embed(INSERTS, () => generator.memory())
		const queries = await embed(QUERIES, () => generator.memory())
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
			row.push(...(await recall(40, 50)))
			table.push(row)
		}
		printTable(
			`${ROWS.toLocaleString('en')} vectors of ${plugins.embedder.space.dimensions} dimensions`,
			[
				'index',
				'build (s)',
				'insert ms/row (median)',
				...EF_SEARCH.flatMap((ef) => [`recall@10 ef_search ${ef}`, 'query ms (median)']),
				'recall@10 of 50 candidates, ef_search 40',
				'query ms (median)',
			],
			table,
		)
	} finally {
		await sql.end({ timeout: 1 })
		await plugins.stop()
		await store.dispose()
	}
}

await main()
