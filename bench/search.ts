/**
 * Search latency: /v3/search and /v4/search (each mode, once the route exists) at 1k, 10k and 100k chunks in the
 * searched container, with 1,000 other containers in the same organization, at concurrency 1 and 16.
 * Seeding writes through the storage plugin; every measured request goes over HTTP to a separate server process.
 *
 * With `--bulk` (PostgreSQL only) the store is loaded by COPY with the indexes built after the load
 * (bench/lib/bulk-seed.ts), which reaches sizes the storage plugin's writes cannot; `--size` lists the sizes.
 *
 * With `--root DIR` each size is measured side by side instead: a server of this checkout (A) and one of the checkout
 * at DIR (B, with its own `bun install`) on the same data (one database, or a copy of the embedded store each), one
 * client, each query sent to both in turn, alternating which goes first; prints both and the ratio B / A. Several
 * B sides, each against A in turn, are separated by commas; `DIR@NAME=VALUE` runs that side with a service setting
 * (e.g. `.@MEMORY_PGLITE_SHARED_BUFFERS=128MB`: this checkout with another buffer cache).
 *
 * `--keep` leaves the store of the (single) size and prints how to measure it again: `--reuse URL|DIR --key KEY`
 * measures a kept PostgreSQL database or embedded data folder without loading it, e.g. after restarting PostgreSQL
 * with other settings, or beside another checkout (`--root`).
 *
 *   bun bench/search.ts [--driver embedded|postgres] [--quick] [--bulk] [--size 100k,300k,1m] [--root DIR[,DIR]]
 *     [--keep | --reuse URL|DIR --key KEY]
 */

import { cpSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import postgres from 'postgres'
import { embeddedDatabaseDir, type Scope } from '../core/index.ts'
import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { openPostgres } from '../plugins/storage-postgres/drivers/postgres.ts'
import { TextGenerator } from '../testkit/text.ts'
import { type BulkTarget, type BulkTimings, bulkSeed } from './lib/bulk-seed.ts'
import { commitOf } from './lib/checkout.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { type EndpointResult, LATENCY_HEADERS, latencyCells, measureEndpoint } from './lib/measure.ts'
import { analyzedVectorPlan, searchAccessPaths } from './lib/plans.ts'
import { seedDocuments, seedOtherContainers } from './lib/seed.ts'
import { seedMemories } from './lib/seed-memories.ts'
import { type ServerProcess, startServer } from './lib/server.ts'
import { summarize } from './lib/stats.ts'
import {
	type BenchStore,
	createStore,
	type Driver,
	driversToRun,
	embedQuery,
	flagValue,
	keptStore,
	openPlugins,
	prepareStore,
	QUICK,
} from './lib/store.ts'
import { bytes, type Cell, fixed, heading, ms, note, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const BULK = process.argv.includes('--bulk')
const KEEP = process.argv.includes('--keep')
/** A store an earlier `--keep` run loaded (database URL or embedded folder), and the API key it printed. */
const REUSE = flagValue(process.argv.slice(2), 'reuse')
const REUSE_KEY = flagValue(process.argv.slice(2), 'key')
/** `--root DIR[@NAME=VALUE][,...]`: the other checkouts (B sides), each with the service settings it runs with. */
const OTHER_SIDES = flagValue(process.argv.slice(2), 'root')
	?.split(',')
	.map((entry) => {
		const [dir, setting] = entry.split('@')
		const [name, value] = setting ? setting.split('=') : []
		return { root: resolve(dir!), env: name && value ? { [name]: value } : {} }
	})

/** `--size 100k,300k,1m`: chunk counts with k (thousand) and m (million) suffixes. */
function parseSizes(value: string | undefined): number[] | null {
	if (!value) return null
	return value.split(',').map((part) => {
		const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(part.trim())
		if (!match) throw new Error(`--size: "${part}" is not a size like 100k or 1m`)
		return Math.round(Number(match[1]) * { '': 1, k: 1_000, m: 1_000_000 }[match[2]!.toLowerCase() as '' | 'k' | 'm'])
	})
}

const SIZES =
	parseSizes(flagValue(process.argv.slice(2), 'size')) ?? (QUICK ? [1_000, 5_000] : [1_000, 10_000, 100_000])
const OTHER_CONTAINERS = QUICK ? 100 : 1_000
const CHUNKS_PER_OTHER_CONTAINER = QUICK ? 5 : 20
const CONCURRENCY = [1, 16]
const REQUESTS = { 1: QUICK ? 60 : 300, 16: QUICK ? 160 : 800 } as Record<number, number>
const MAX_MS = QUICK ? 10_000 : 30_000
const TARGET = 'bench-searched'
const V4_MODES = ['memories', 'hybrid', 'documents'] as const

let queries: string[] = []
/** The embedding of the first query, for the EXPLAINed plans. */
let queryVector: Float32Array = new Float32Array()

interface Build {
	size: number
	timings: BulkTimings
	disk: { database: number; chunks: number; memories: number }
	/** Peak RSS of the server process while it was measured. */
	rss: number
}
const builds: Build[] = []
const analyzedPlans: Cell[][] = []
const knownRows: Cell[][] = []

/** The 1,000 neighbours of the searched container, each with its chunks and as many memories. */
function otherContainerTargets(): BulkTarget[] {
	return Array.from({ length: OTHER_CONTAINERS }, (_, index) => ({
		containerTag: `other-${index}`,
		chunks: CHUNKS_PER_OTHER_CONTAINER,
		memories: CHUNKS_PER_OTHER_CONTAINER,
		documentBytes: Math.max(400, CHUNKS_PER_OTHER_CONTAINER * 850),
		seed: 1_000_000 + index,
	}))
}

/**
 * Searches for a stored chunk's and a stored memory's own text, which must come back (first in the vector ranking:
 * the query's embedding is the row's): a bulk-loaded store answers the service's searches like a written one.
 */
async function knownRowCheck(client: BenchClient, url: string, size: number): Promise<void> {
	const sql = postgres(url, { max: 1, onnotice: () => {} })
	const [chunk] = await sql<{ content: string; document_id: string }[]>`
		SELECT content, document_id FROM chunks WHERE container_tag = ${TARGET} ORDER BY id LIMIT 1 OFFSET ${Math.floor(size / 2)}`
	const [memory] = await sql<{ memory: string; id: string }[]>`
		SELECT memory, id FROM memories WHERE container_tag = ${TARGET} ORDER BY id LIMIT 1 OFFSET ${Math.floor(size / 2)}`
	await sql.end()
	const found = async (body: unknown, id: string) => {
		const reply = await client.post(
			body && (body as { searchMode?: string }).searchMode ? '/v4/search' : '/v3/search',
			body,
		)
		return reply.status === 200 && JSON.stringify(reply.body).includes(id) ? 'found' : `NOT FOUND (${reply.status})`
	}
	knownRows.push([
		size.toLocaleString('en'),
		await found({ q: chunk!.content, containerTag: TARGET, limit: 5 }, chunk!.document_id),
		await found({ q: chunk!.content, containerTag: TARGET, searchMode: 'hybrid', limit: 5 }, chunk!.document_id),
		await found({ q: memory!.memory, containerTag: TARGET, searchMode: 'memories', limit: 5 }, memory!.id),
	])
}

async function relationSizes(url: string): Promise<Build['disk']> {
	const sql = postgres(url, { max: 1, onnotice: () => {} })
	try {
		const [row] = await sql<{ database: string; chunks: string; memories: string }[]>`
			SELECT pg_database_size(current_database())::text AS database,
				pg_total_relation_size('chunks')::text AS chunks, pg_total_relation_size('memories')::text AS memories`
		return { database: Number(row!.database), chunks: Number(row!.chunks), memories: Number(row!.memories) }
	} finally {
		await sql.end()
	}
}

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

/** The organization whose searched container a kept store holds. */
async function keptOrganization(store: BenchStore): Promise<string> {
	const driver = store.databaseUrl
		? openPostgres(store.databaseUrl)
		: await openPglite(embeddedDatabaseDir(store.dataDir))
	try {
		const [row] = await driver.db.query<{ org_id: string }>(
			'SELECT org_id FROM chunks WHERE container_tag = $1 LIMIT 1',
			[TARGET],
		)
		if (!row) throw new Error(`--reuse: ${store.databaseUrl ?? store.dataDir} holds no chunks of ${TARGET}`)
		return row.org_id
	} finally {
		await driver.close()
	}
}

/** Rows seeded into the searched container so far. */
interface Seeded {
	chunks: number
	memories: number
}

/**
 * Grows the searched container to `size` chunks and as many memories (and seeds the other containers first), through
 * the storage plugin or, with `--bulk`, by COPY; the plugins are open only meanwhile.
 */
async function seedTo(store: BenchStore, scope: Scope, size: number, seeded: Seeded): Promise<void> {
	const driver = store.driver
	const plugins = await openPlugins(store)
	try {
		if (!BULK && seeded.chunks === 0) {
			const started = performance.now()
			const others = await seedOtherContainers(plugins, scope, {
				containers: OTHER_CONTAINERS,
				chunksEach: CHUNKS_PER_OTHER_CONTAINER,
				concurrency: driver === 'postgres' ? 4 : 1,
			})
			console.error(
				`[search/${driver}] seeded ${OTHER_CONTAINERS} other containers: ${others.chunks} chunks in ${((performance.now() - started) / 1000).toFixed(0)} s`,
			)
		}
		const seedStarted = performance.now()
		if (BULK) {
			const targets: BulkTarget[] = [
				...(seeded.chunks === 0 ? otherContainerTargets() : []),
				{
					containerTag: TARGET,
					chunks: size - seeded.chunks,
					memories: size - seeded.memories,
					documentBytes: 9_000,
					seed: size,
				},
			]
			const timings = await bulkSeed(store.databaseUrl!, plugins.embedder, scope, targets, {
				log: (line) => console.error(`[search/${driver}] ${line}`),
			})
			const searched = timings.loaded.find((entry) => entry.containerTag === TARGET)!
			seeded.chunks += searched.chunks
			seeded.memories += searched.memories
			builds.push({ size, timings, disk: await relationSizes(store.databaseUrl!), rss: Number.NaN })
		} else {
			const added = await seedDocuments(plugins, scope, {
				containerTag: TARGET,
				chunks: size - seeded.chunks,
				documentBytes: 9_000,
				seed: size,
				concurrency: driver === 'postgres' ? 4 : 1,
			})
			seeded.chunks += added.chunks
			if ('memories' in plugins.storage) {
				seeded.memories += await seedMemories(plugins, scope, {
					containerTag: TARGET,
					count: size - seeded.memories,
					seed: size,
				})
			}
		}
		console.error(
			`[search/${driver}] searched container at ${seeded.chunks} chunks and ${seeded.memories} memories (${((performance.now() - seedStarted) / 1000).toFixed(0)} s)`,
		)
	} finally {
		await plugins.stop()
	}
}

async function benchDriver(driver: Driver, rows: Row[], paths: Cell[][]): Promise<void> {
	const store = REUSE ? keptStore(REUSE) : await createStore(driver)
	try {
		const { key, orgId } = REUSE ? { key: REUSE_KEY!, orgId: await keptOrganization(store) } : await prepareStore(store)
		const scope = { orgId }
		const seeded: Seeded = { chunks: 0, memories: 0 }
		for (const size of SIZES) {
			// A kept store is measured as it is: opening it with this checkout's storage plugin would migrate it (and
			// tidy its indexes) before the sides of a comparison are copied from it.
			if (REUSE) Object.assign(seeded, { chunks: size, memories: size })
			else await seedTo(store, scope, size, seeded)
			if (!BULK && !REUSE) await analyze(store)
			const access = await searchAccessPaths(store, scope, TARGET, queries[0]!, queryVector)
			paths.push([driver, size.toLocaleString('en'), access.vector, access.text])
			if (store.databaseUrl) {
				// The searched container, and a neighbour of 20 chunks: the filter keeps most rows of the one, few of the other.
				for (const tag of [TARGET, 'other-7']) {
					const analyzed = await analyzedVectorPlan(store, scope, tag, queryVector)
					console.error(`[search/${driver}] EXPLAIN (ANALYZE, BUFFERS) in ${tag} at ${size}:\n${analyzed.plan}`)
					analyzedPlans.push([
						size.toLocaleString('en'),
						tag,
						analyzed.index ? 'HNSW (chunks_embedding_idx)' : 'no HNSW',
						analyzed.removedByFilter,
						`${analyzed.sharedHit} / ${analyzed.sharedRead}`,
						analyzed.ms.toFixed(1),
					])
				}
			}
			if (OTHER_SIDES) {
				await measureSideBySide(store, key, size)
				continue
			}
			const server = await startServer(store)
			try {
				const client = new BenchClient(server.url, key)
				const v4 = await client.hasRoute('POST', '/v4/search', { q: 'probe' })
				if (BULK) await knownRowCheck(client, store.databaseUrl!, size)
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
				const build = builds.find((entry) => entry.size === size)
				if (build) build.rss = server.memory().peak
			} finally {
				await server.stop()
			}
		}
		if (seeded.memories === 0) {
			note(
				`${driver}: the searched container holds chunks only: memories are seeded once the storage plugin has a memory store.`,
			)
		}
		if (KEEP) {
			const location = store.databaseUrl ?? store.dataDir
			console.error(
				`[search/${driver}] kept: bun bench/search.ts --driver ${driver} --size ${SIZES.join(',')} --reuse ${location} --key ${key}`,
			)
		}
	} finally {
		if (KEEP && store.databaseUrl) rmSync(store.dataDir, { recursive: true, force: true })
		else if (!KEEP) await store.dispose()
	}
}

const sideBySide: Cell[][] = []

/**
 * Every endpoint at one client on a server of this checkout (A) and of each other side (B) in turn, interleaved A B,
 * B A, ... PostgreSQL sides share the database; an embedded store is copied for each side (one process per store).
 */
async function measureSideBySide(store: BenchStore, key: string, size: number): Promise<void> {
	const copies: string[] = []
	const storeFor = (side: string): BenchStore => {
		if (store.databaseUrl) return store
		const dataDir = `${store.dataDir}-${side}`
		cpSync(store.dataDir, dataDir, { recursive: true })
		copies.push(dataDir)
		return { ...store, dataDir, env: { ...store.env, MEMORY_DATA_DIR: dataDir } }
	}
	const a = { label: `A ${commitOf(resolve(import.meta.dir, '..'))}`, server: await startServer(storeFor('a')) }
	try {
		for (const [n, other] of OTHER_SIDES!.entries()) {
			const settings = Object.entries(other.env).map(([name, value]) => ` ${name}=${value}`)
			const b = {
				label: `B ${commitOf(other.root)}${settings.join('')}`,
				server: await startServer(storeFor(`b${n}`), other.env, 300_000, [], other.root),
			}
			try {
				await compareEndpoints([a, b], key, size)
			} finally {
				await b.server.stop()
			}
		}
	} finally {
		await a.server.stop()
		for (const copy of copies) rmSync(copy, { recursive: true, force: true })
	}
}

async function compareEndpoints(sides: { label: string; server: ServerProcess }[], key: string, size: number) {
	const clients = sides.map((side) => new BenchClient(side.server.url, key))
	const endpoints = [
		{ name: 'v3', path: '/v3/search', body: (q: string) => ({ q, containerTag: TARGET }) },
		...V4_MODES.map((mode) => ({
			name: `v4 ${mode}`,
			path: '/v4/search',
			body: (q: string) => ({ q, containerTag: TARGET, searchMode: mode }),
		})),
	]
	for (const endpoint of endpoints) {
		const times: number[][] = [[], []]
		for (let i = -20; i < REQUESTS[1]!; i++) {
			for (const side of i % 2 === 0 ? [0, 1] : [1, 0]) {
				const reply = await clients[side]!.post(endpoint.path, endpoint.body(queries[(i + 20) % queries.length]!))
				if (reply.status !== 200) throw new Error(`${sides[side]!.label} ${endpoint.path} answered ${reply.status}`)
				if (i >= 0) times[side]!.push(reply.serverMs ?? reply.ms)
			}
		}
		const [a, b] = times.map((values) => summarize(values))
		const cells = (label: string, summary: typeof a) => [
			size.toLocaleString('en'),
			endpoint.name,
			label,
			ms(summary!.p50),
			ms(summary!.p95),
			'',
			summary!.count,
		]
		sideBySide.push(cells(sides[0]!.label, a), cells(sides[1]!.label, b), [
			size.toLocaleString('en'),
			endpoint.name,
			'ratio B / A',
			'',
			'',
			`${fixed(b!.p50 / a!.p50, 2)} / ${fixed(b!.p95 / a!.p95, 2)}`,
			'',
		])
	}
}

async function main() {
	const drivers = driversToRun()
	if (BULK && drivers.includes('embedded')) throw new Error('--bulk loads PostgreSQL only: add --driver postgres')
	if ((KEEP || REUSE) && (drivers.length !== 1 || SIZES.length !== 1))
		throw new Error('--keep and --reuse take one --driver and one --size')
	if (REUSE && !REUSE_KEY) throw new Error('--reuse takes the --key the run that kept the store printed')
	const generator = new TextGenerator(42, await loadVocabulary())
	queries = Array.from({ length: 500 }, () => generator.query())
	queryVector = await embedQuery(queries[0]!)
	heading('Search latency')
	await printMachine(drivers.includes('postgres') ? process.env.BENCH_DATABASE_URL : null)
	console.log(
		`Searched container: ${SIZES.map((s) => s.toLocaleString('en')).join(' / ')} chunks (~10 per 9 KB document); ${OTHER_CONTAINERS.toLocaleString('en')} other containers of ~${CHUNKS_PER_OTHER_CONTAINER} chunks each in the same organization. Text: Zipf-distributed words of the embedder vocabulary. Queries: 500 generated 2-4 content-word queries, limit 10. Times in ms; "server" is the response's \`timing\`.`,
	)
	const rows: Row[] = []
	const paths: Cell[][] = []
	for (const driver of drivers) await benchDriver(driver, rows, paths)
	if (OTHER_SIDES) {
		printTable(
			'Side by side, one client, interleaved (server ms)',
			['chunks', 'endpoint', 'checkout', 'server p50', 'server p95', 'B / A p50 / p95', 'requests'],
			sideBySide,
		)
	}
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
	if (analyzedPlans.length > 0) {
		printTable(
			'Container-filtered vector search of chunks, limit 100 (EXPLAIN (ANALYZE, BUFFERS))',
			['chunks', 'container', 'path', 'rows removed by the container filter', 'shared hit / read', 'execution ms'],
			analyzedPlans,
		)
	}
	if (knownRows.length > 0) {
		printTable(
			'Known rows of the bulk load found by their own text',
			['chunks', 'v3 chunk', 'v4 hybrid chunk', 'v4 memories memory'],
			knownRows,
		)
	}
	if (builds.length > 0) {
		const seconds = (value: number) => (value / 1000).toFixed(1)
		const indexMs = (build: Build, name: string) => build.timings.indexes.find((index) => index.name === name)?.ms ?? 0
		printTable(
			'Bulk load (COPY, indexes built after)',
			[
				'chunks',
				'rows loaded (chunks + memories)',
				'COPY s',
				'rows/s',
				'HNSW chunks s',
				'HNSW memories s',
				'other indexes s',
				'database',
				'chunks table',
				'memories table',
				'server peak RSS',
			],
			builds.map((build) => {
				const hnsw = indexMs(build, 'chunks_embedding_idx') + indexMs(build, 'memories_embedding_idx')
				const all = build.timings.indexes.reduce((total, index) => total + index.ms, 0)
				const rowsLoaded = build.timings.chunks + build.timings.memories
				return [
					build.size.toLocaleString('en'),
					rowsLoaded.toLocaleString('en'),
					seconds(build.timings.copyMs),
					Math.round(rowsLoaded / (build.timings.copyMs / 1000)).toLocaleString('en'),
					seconds(indexMs(build, 'chunks_embedding_idx')),
					seconds(indexMs(build, 'memories_embedding_idx')),
					seconds(all - hnsw),
					bytes(build.disk.database),
					bytes(build.disk.chunks),
					bytes(build.disk.memories),
					bytes(build.rss),
				]
			}),
		)
		note('Each load drops and rebuilds the indexes over the whole table: the build times are for the size in that row.')
	}
}

await main()
