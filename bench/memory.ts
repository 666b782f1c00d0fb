/**
 * Memory and disk: server RSS idle and after 100k items, on-disk size per 1,000 documents, and the cold start of a
 * server after the first run (spawn `bun server/main.ts` until /health answers 200).
 *
 *   bun bench/memory.ts [--driver embedded|postgres] [--quick]
 */

import { TextGenerator } from '../testkit/text.ts'
import { waitUntilProcessed } from './lib/documents.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { measureEndpoint } from './lib/measure.ts'
import { seedDocuments } from './lib/seed.ts'
import { type ServerProcess, startServer } from './lib/server.ts'
import { median } from './lib/stats.ts'
import {
	type BenchStore,
	createStore,
	type Driver,
	driversToRun,
	openPlugins,
	prepareStore,
	QUICK,
} from './lib/store.ts'
import { bytes, type Cell, heading, ms, note, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const ITEMS = QUICK ? 5_000 : 100_000
const INGESTED_DOCUMENTS = QUICK ? 200 : 1_000
const COLD_STARTS = 5
const IDLE_MS = 3_000
const TAG = 'bench-memory'

interface Results {
	rss: Cell[][]
	disk: Cell[][]
	cold: Cell[][]
}

const mb = (value: number) => bytes(value)

async function coldStarts(store: BenchStore): Promise<number[]> {
	const times: number[] = []
	for (let i = 0; i < COLD_STARTS; i++) {
		const server = await startServer(store)
		times.push(server.startupMs)
		await server.stop()
	}
	return times
}

function coldRow(driver: Driver, label: string, times: number[]): Cell[] {
	return [driver, label, ms(Math.min(...times)), ms(median(times)), ms(Math.max(...times))]
}

/** A light mixed workload: searches and a few ingests, so caches and pools fill as in use. */
async function workload(client: BenchClient, generator: TextGenerator): Promise<void> {
	const queries = Array.from({ length: 200 }, () => generator.query())
	await measureEndpoint(client, '/v3/search', (i) => ({ q: queries[i % queries.length], containerTag: TAG }), {
		concurrency: 8,
		requests: 1_000,
		maxMs: 60_000,
	})
}

async function benchDriver(driver: Driver, results: Results): Promise<void> {
	const store = await createStore(driver)
	const generator = new TextGenerator(11, await loadVocabulary())
	let server: ServerProcess | null = null
	try {
		const { key, orgId } = await prepareStore(store)
		server = await startServer(store)
		const firstStart = server.startupMs
		await Bun.sleep(IDLE_MS)
		const idle = server.memory()
		results.rss.push([driver, 'idle, empty store', mb(idle.rss), mb(idle.peak)])

		const client = new BenchClient(server.url, key)
		const diskBefore = await store.diskBytes()
		const contents = Array.from({ length: INGESTED_DOCUMENTS }, () => generator.prose(1_024))
		await measureEndpoint(
			client,
			'/v3/documents',
			(i) => ({ content: contents[i], containerTag: 'disk', dreaming: 'instant' }),
			{
				concurrency: 16,
				requests: INGESTED_DOCUMENTS,
				maxMs: 5 * 60_000,
			},
		)
		await waitUntilProcessed(client, 'disk', INGESTED_DOCUMENTS, 15 * 60_000)
		const afterIngest = server.memory()
		results.rss.push([
			driver,
			`after ingesting ${INGESTED_DOCUMENTS.toLocaleString('en')} 1 KB documents`,
			mb(afterIngest.rss),
			mb(afterIngest.peak),
		])
		await server.stop()
		server = null
		const diskAfter = await store.diskBytes()
		results.disk.push([
			driver,
			'1 KB prose through the pipeline',
			mb(((diskAfter - diskBefore) / INGESTED_DOCUMENTS) * 1000),
		])

		const plugins = await openPlugins(store)
		const seeded = await seedDocuments(
			plugins,
			{ orgId },
			{
				containerTag: TAG,
				chunks: ITEMS,
				documentBytes: 9_000,
				seed: 5,
				concurrency: driver === 'postgres' ? 4 : 1,
			},
		)
		await plugins.stop()
		const diskSeeded = await store.diskBytes()
		results.disk.push([
			driver,
			'9 KB prose (~10 chunks each), seeded',
			mb(((diskSeeded - diskAfter) / seeded.documents) * 1000),
		])

		server = await startServer(store)
		await Bun.sleep(IDLE_MS)
		const idleLarge = server.memory()
		const label = `${seeded.chunks.toLocaleString('en')} chunks in ${seeded.documents.toLocaleString('en')} documents`
		results.rss.push([driver, `idle, ${label}`, mb(idleLarge.rss), mb(idleLarge.peak)])
		await workload(new BenchClient(server.url, key), generator)
		const busy = server.memory()
		results.rss.push([driver, `${label}, after 1,000 searches`, mb(busy.rss), mb(busy.peak)])
		await server.stop()
		server = null

		results.cold.push([driver, 'first start of an empty store (schema created)', ms(firstStart), null, null])
		results.cold.push(coldRow(driver, `after the first run, ${label}`, await coldStarts(store)))
	} finally {
		await server?.stop()
		await store.dispose()
	}
	const empty = await createStore(driver)
	try {
		await prepareStore(empty)
		results.cold.push(coldRow(driver, 'after the first run, empty store', await coldStarts(empty)))
	} finally {
		await empty.dispose()
	}
}

async function main() {
	const drivers = driversToRun()
	heading('Memory, disk and cold start')
	await printMachine(drivers.includes('postgres') ? process.env.BENCH_DATABASE_URL : null)
	console.log(
		`Server: \`bun server/main.ts\` with the local embedder; RSS from /proc (VmRSS, peak VmHWM) after ${IDLE_MS / 1000} s idle. Items are chunks seeded through the storage plugin.`,
	)
	const results: Results = { rss: [], disk: [], cold: [] }
	for (const driver of drivers) await benchDriver(driver, results)
	printTable('Server memory (RSS)', ['driver', 'state', 'RSS', 'peak RSS'], results.rss)
	printTable('On-disk size per 1,000 documents', ['driver', 'documents', 'size per 1,000'], results.disk)
	printTable(
		`Server start until /health answers 200 (ms, ${COLD_STARTS} starts)`,
		['driver', 'store', 'min', 'median', 'max'],
		results.cold,
	)
	note(
		'Embedded size is the PGlite folder (tables, indexes, WAL); PostgreSQL size is pg_database_size (tables, indexes, job queue; WAL not included).',
	)
}

await main()
