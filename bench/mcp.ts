/**
 * MCP tool-call latency next to the REST routes each tool wraps, through the official SDK client over Streamable
 * HTTP (2025-era stateless and 2026-07-28), on a container with seeded memories and ingested documents:
 *   search_memory (includeProfile false)  vs  POST /v4/search (hybrid, 10 results)
 *   search_memory (with profile)          vs  POST /v4/search and POST /v4/profile sent together
 *   add_memory                            vs  POST /v3/documents
 * Client latency only (the SDK hides response headers); the pipeline is drained after each add run.
 *
 *   bun bench/mcp.ts [--driver embedded|postgres] [--quick]
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { TextGenerator } from '../testkit/text.ts'
import { waitUntilProcessed } from './lib/documents.ts'
import { BenchClient } from './lib/http.ts'
import { type LoadOptions, runLoad } from './lib/load.ts'
import { printMachine } from './lib/machine.ts'
import { seedMemories } from './lib/seed-memories.ts'
import { startServer } from './lib/server.ts'
import { summarize } from './lib/stats.ts'
import { createStore, type Driver, driversToRun, openPlugins, prepareStore, QUICK } from './lib/store.ts'
import { type Cell, fixed, heading, ms, note, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const MEMORIES = QUICK ? 500 : 5_000
const DOCUMENTS = QUICK ? 50 : 200
const TAG = 'bench-mcp'
const ADD_TAG = 'bench-mcp-add'
const REQUESTS = { 1: QUICK ? 50 : 200, 16: QUICK ? 160 : 800 } as Record<number, number>

type Send = (index: number) => Promise<boolean>
type Via = 'REST' | 'MCP 2025' | 'MCP 2026'

async function mcpClient(url: string, key: string, modern: boolean): Promise<Client> {
	const client = new Client(
		{ name: 'memory-bench', version: '1.0.0' },
		{ versionNegotiation: { mode: modern ? 'auto' : 'legacy' } },
	)
	await client.connect(
		new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: { token: async () => key } }),
	)
	return client
}

async function measure(send: Send, load: LoadOptions) {
	const result = await runLoad(load, async (index) => {
		const started = performance.now()
		const ok = await send(index)
		return { ok, ms: performance.now() - started }
	})
	return { result, client: summarize(result.samples.map((sample) => sample.ms)) }
}

async function benchDriver(driver: Driver, rows: Cell[][]) {
	const store = await createStore(driver)
	try {
		const { key, orgId } = await prepareStore(store)
		const plugins = await openPlugins(store)
		await seedMemories(plugins, { orgId }, { containerTag: TAG, count: MEMORIES, seed: 11 })
		await plugins.stop()
		const server = await startServer(store)
		const rest = new BenchClient(server.url, key)
		const generator = new TextGenerator(7, await loadVocabulary())
		for (let i = 0; i < DOCUMENTS; i++) {
			await rest.post('/v3/documents', { content: generator.prose(1024), containerTag: TAG })
		}
		await waitUntilProcessed(rest, TAG, DOCUMENTS, 600_000)
		const legacy = await mcpClient(server.url, key, false)
		const modern = await mcpClient(server.url, key, true)
		try {
			const queries = Array.from({ length: 200 }, () => generator.query())
			const contents = Array.from({ length: 1000 }, () => generator.prose(1024))
			const q = (i: number) => queries[i % queries.length]!
			// A loaded machine can take longer than the SDK's default 60 s; a slow call should count, not abort the run.
			const tool = (client: Client, name: string, args: (i: number) => Record<string, unknown>): Send => {
				return async (i) => !(await client.callTool({ name, arguments: args(i) }, { timeout: 300_000 })).isError
			}
			const operations: { name: string; via: Record<Via, Send>; drain?: boolean }[] = [
				{
					name: 'search',
					via: {
						REST: async (i) =>
							(await rest.post('/v4/search', { q: q(i), containerTag: TAG, searchMode: 'hybrid', limit: 10 }))
								.status === 200,
						'MCP 2025': tool(legacy, 'search_memory', (i) => ({
							query: q(i),
							containerTag: TAG,
							includeProfile: false,
						})),
						'MCP 2026': tool(modern, 'search_memory', (i) => ({
							query: q(i),
							containerTag: TAG,
							includeProfile: false,
						})),
					},
				},
				{
					name: 'search + profile',
					via: {
						REST: async (i) => {
							const [search, profile] = await Promise.all([
								rest.post('/v4/search', { q: q(i), containerTag: TAG, searchMode: 'hybrid', limit: 10 }),
								rest.post('/v4/profile', { containerTag: TAG }),
							])
							return search.status === 200 && profile.status === 200
						},
						'MCP 2025': tool(legacy, 'search_memory', (i) => ({ query: q(i), containerTag: TAG })),
						'MCP 2026': tool(modern, 'search_memory', (i) => ({ query: q(i), containerTag: TAG })),
					},
				},
				{
					name: 'add',
					drain: true,
					via: {
						REST: async (i) =>
							(await rest.post('/v3/documents', { content: contents[i % contents.length], containerTag: ADD_TAG }))
								.status === 200,
						'MCP 2025': tool(legacy, 'add_memory', (i) => ({
							content: contents[i % contents.length],
							containerTag: ADD_TAG,
						})),
						'MCP 2026': tool(modern, 'add_memory', (i) => ({
							content: contents[i % contents.length],
							containerTag: ADD_TAG,
						})),
					},
				},
			]
			let added = 0
			for (const operation of operations) {
				for (const concurrency of [1, 16]) {
					for (const via of ['REST', 'MCP 2025', 'MCP 2026'] as Via[]) {
						const send = operation.via[via]
						if (!operation.drain) await measure(send, { concurrency: 4, requests: 20, maxMs: 10_000 })
						const { result, client } = await measure(send, {
							concurrency,
							requests: REQUESTS[concurrency]!,
							maxMs: 30_000,
						})
						console.error(`[mcp/${driver}] ${operation.name} via ${via} at ${concurrency}: p50 ${ms(client.p50)} ms`)
						rows.push([
							driver,
							operation.name,
							via,
							concurrency,
							ms(client.p50),
							ms(client.p95),
							ms(client.p99),
							fixed(result.perSecond),
							`${client.count}${result.cutShort ? ' (time bound)' : ''}`,
							result.errors,
						])
						if (operation.drain) {
							added += client.count
							await waitUntilProcessed(rest, ADD_TAG, added, 600_000)
						}
					}
				}
			}
		} finally {
			await legacy.close()
			await modern.close()
			await server.stop()
		}
	} finally {
		await store.dispose()
	}
}

async function main() {
	const drivers = driversToRun()
	heading(
		`MCP tool calls next to the REST routes they wrap (${MEMORIES.toLocaleString('en')} memories, ${DOCUMENTS} documents)`,
	)
	await printMachine(drivers.includes('postgres') ? process.env.BENCH_DATABASE_URL : null)
	note(
		'client latency; each MCP call is one stateless HTTP request (no session); the pipeline is drained between add runs',
	)
	const rows: Cell[][] = []
	for (const driver of drivers) await benchDriver(driver, rows)
	printTable(
		'Tool call vs REST (ms)',
		[
			'driver',
			'operation',
			'via',
			'concurrency',
			'client p50',
			'client p95',
			'client p99',
			'req/s',
			'requests',
			'errors',
		],
		rows,
	)
}

await main()
