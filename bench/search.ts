/**
 * Search latency: /v3/search and /v4/search (each mode, once the route exists) at 1k, 10k and 100k chunks in the
 * searched container, with 1,000 other containers in the same organization, at concurrency 1 and 16.
 * Seeding writes through the storage plugin; every measured request goes over HTTP to a separate server process.
 *
 *   bun bench/search.ts [--driver embedded|postgres] [--quick]
 */
import postgres from 'postgres'
import { TextGenerator } from '../testkit/text.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { type EndpointResult, LATENCY_HEADERS, latencyCells, measureEndpoint } from './lib/measure.ts'
import { searchAccessPaths } from './lib/plans.ts'
import { seedDocuments, seedOtherContainers } from './lib/seed.ts'
import { seedMemories } from './lib/seed-memories.ts'
import { startServer } from './lib/server.ts'
import {
	type BenchStore,
	createStore,
	type Driver,
	driversToRun,
	openPlugins,
	prepareStore,
	QUICK,
} from './lib/store.ts'
import { type Cell, heading, note, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const SIZES = QUICK ? [1_000, 5_000] : [1_000, 10_000, 100_000]
const OTHER_CONTAINERS = QUICK ? 100 : 1_000
const CHUNKS_PER_OTHER_CONTAINER = QUICK ? 5 : 20
const CONCURRENCY = [1, 16]
const REQUESTS = { 1: QUICK ? 60 : 300, 16: QUICK ? 160 : 800 } as Record<number, number>
const MAX_MS = QUICK ? 10_000 : 30_000
const TARGET = 'bench-searched'
const V4_MODES = ['memories', 'hybrid', 'documents'] as const

let queries: string[] = []

interface Row {
	driver: Driver
	size: number
	endpoint: string
	/** Null when the endpoint does not exist yet. */
	result: EndpointResult | null
}

async function analyze(store: BenchStore): Promise<void> {
	// A server that has been running a while has been vacuumed and analyzed by autovacuum; a freshly seeded one not yet.
	if (!store.databaseUrl) return
	const sql = postgres(store.databaseUrl, { max: 1, onnotice: () => {} })
	await sql.unsafe('VACUUM ANALYZE')
	await sql.end()
}

async function benchDriver(driver: Driver, rows: Row[], paths: Cell[][]): Promise<void> {
	const store = await createStore(driver)
	try {
		const { key, orgId } = await prepareStore(store)
		const scope = { orgId }
		let plugins = await openPlugins(store)
		const started = performance.now()
		const others = await seedOtherContainers(plugins, scope, {
			containers: OTHER_CONTAINERS,
			chunksEach: CHUNKS_PER_OTHER_CONTAINER,
			concurrency: driver === 'postgres' ? 4 : 1,
		})
		console.error(
			`[search/${driver}] seeded ${OTHER_CONTAINERS} other containers: ${others.chunks} chunks in ${((performance.now() - started) / 1000).toFixed(0)} s`,
		)
		let seeded = 0
		let memoriesSeeded = 0
		for (const size of SIZES) {
			const seedStarted = performance.now()
			const added = await seedDocuments(plugins, scope, {
				containerTag: TARGET,
				chunks: size - seeded,
				documentBytes: 9_000,
				seed: size,
				concurrency: driver === 'postgres' ? 4 : 1,
			})
			seeded += added.chunks
			if ('memories' in plugins.storage) {
				memoriesSeeded += await seedMemories(plugins, scope, {
					containerTag: TARGET,
					count: size - memoriesSeeded,
					seed: size,
				})
			}
			console.error(
				`[search/${driver}] searched container at ${seeded} chunks and ${memoriesSeeded} memories (${((performance.now() - seedStarted) / 1000).toFixed(0)} s)`,
			)
			const [vector] = await plugins.embedder.embed([queries[0]!], 'query')
			await plugins.stop()
			await analyze(store)
			const access = await searchAccessPaths(store, scope, TARGET, queries[0]!, vector!)
			paths.push([driver, size.toLocaleString('en'), access.vector, access.text])

			const server = await startServer(store)
			try {
				const client = new BenchClient(server.url, key)
				const v4 = await client.hasRoute('POST', '/v4/search', { q: 'probe' })
				const endpoints: { name: string; path: string; body: (i: number) => unknown }[] = [
					{ name: 'v3', path: '/v3/search', body: (i) => ({ q: queries[i % queries.length], containerTag: TARGET }) },
					...(v4
						? V4_MODES.map((mode) => ({
								name: `v4 ${mode}`,
								path: '/v4/search',
								body: (i: number) => ({ q: queries[i % queries.length], containerTag: TARGET, searchMode: mode }),
							}))
						: []),
				]
				for (const endpoint of endpoints) {
					await measureEndpoint(client, endpoint.path, endpoint.body, { concurrency: 4, requests: 40, maxMs: 10_000 })
					for (const concurrency of CONCURRENCY) {
						const result = await measureEndpoint(client, endpoint.path, endpoint.body, {
							concurrency,
							requests: REQUESTS[concurrency]!,
							maxMs: MAX_MS,
						})
						rows.push({ driver, size, endpoint: endpoint.name, result })
					}
				}
				if (!v4) rows.push({ driver, size, endpoint: 'v4 (all modes)', result: null })
			} finally {
				await server.stop()
			}
			plugins = await openPlugins(store)
		}
		await plugins.stop()
		if (memoriesSeeded === 0) {
			note(
				`${driver}: the searched container holds chunks only: memories are seeded once the storage plugin has a memory store.`,
			)
		}
	} finally {
		await store.dispose()
	}
}

async function main() {
	const drivers = driversToRun()
	const generator = new TextGenerator(42, await loadVocabulary())
	queries = Array.from({ length: 500 }, () => generator.query())
	heading('Search latency')
	await printMachine(drivers.includes('postgres') ? process.env.BENCH_DATABASE_URL : null)
	console.log(
		`Searched container: ${SIZES.map((s) => s.toLocaleString('en')).join(' / ')} chunks (~10 per 9 KB document); ${OTHER_CONTAINERS.toLocaleString('en')} other containers of ~${CHUNKS_PER_OTHER_CONTAINER} chunks each in the same organization. Text: Zipf-distributed words of the embedder vocabulary. Queries: 500 generated 2-4 content-word queries, limit 10. Times in ms; "server" is the response's \`timing\`.`,
	)
	const rows: Row[] = []
	const paths: Cell[][] = []
	for (const driver of drivers) await benchDriver(driver, rows, paths)
	printTable(
		'Search latency (ms) and throughput',
		['driver', 'chunks', 'endpoint', ...LATENCY_HEADERS],
		rows.map((row) =>
			row.result
				? [row.driver, row.size.toLocaleString('en'), row.endpoint, ...latencyCells(row.result)]
				: [row.driver, row.size.toLocaleString('en'), row.endpoint, 'not available yet (no /v4/search route)'],
		),
	)
	printTable(
		'Access paths of the chunk searches (EXPLAIN)',
		['driver', 'chunks', 'vector search', 'full-text search'],
		paths,
	)
}

await main()
