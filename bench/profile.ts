/**
 * Profile latency: POST /v4/profile on a container holding 10,000 memories (seeded through the storage plugin), with
 * and without a search query, at concurrency 1 and 16. Skips cleanly until the memory engine serves /v4/profile.
 *
 *   bun bench/profile.ts [--driver embedded|postgres] [--quick]
 */

import { TextGenerator } from '../testkit/text.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { LATENCY_HEADERS, latencyCells, measureEndpoint } from './lib/measure.ts'
import { seedMemories } from './lib/seed-memories.ts'
import { startServer } from './lib/server.ts'
import { createStore, type Driver, driversToRun, openPlugins, prepareStore, QUICK } from './lib/store.ts'
import { type Cell, heading, note, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const MEMORIES = QUICK ? 1_000 : 10_000
const TAG = 'bench-profile'
const REQUESTS = { 1: QUICK ? 50 : 200, 16: QUICK ? 160 : 800 } as Record<number, number>

async function benchDriver(driver: Driver, rows: Cell[][]): Promise<boolean> {
	const store = await createStore(driver)
	try {
		const { key, orgId } = await prepareStore(store)
		const probe = await startServer(store)
		const available = await new BenchClient(probe.url, key).hasRoute('POST', '/v4/profile', { containerTag: TAG })
		await probe.stop()
		if (!available) return false
		const plugins = await openPlugins(store)
		const started = performance.now()
		if ('memories' in plugins.storage)
			await seedMemories(plugins, { orgId }, { containerTag: TAG, count: MEMORIES, seed: 3 })
		await plugins.stop()
		console.error(
			`[profile/${driver}] ${MEMORIES} memories seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`,
		)
		const server = await startServer(store)
		try {
			const client = new BenchClient(server.url, key)
			const generator = new TextGenerator(5, await loadVocabulary())
			const queries = Array.from({ length: 200 }, () => generator.query())
			const variants: { name: string; body: (i: number) => unknown }[] = [
				{ name: 'profile', body: () => ({ containerTag: TAG }) },
				{ name: 'profile + q', body: (i) => ({ containerTag: TAG, q: queries[i % queries.length] }) },
			]
			for (const variant of variants) {
				await measureEndpoint(client, '/v4/profile', variant.body, { concurrency: 4, requests: 20, maxMs: 10_000 })
				for (const concurrency of [1, 16]) {
					const result = await measureEndpoint(client, '/v4/profile', variant.body, {
						concurrency,
						requests: REQUESTS[concurrency]!,
						maxMs: 30_000,
					})
					rows.push([driver, variant.name, ...latencyCells(result)])
				}
			}
			return true
		} finally {
			await server.stop()
		}
	} finally {
		await store.dispose()
	}
}

async function main() {
	const drivers = driversToRun()
	heading(`Profile latency (${MEMORIES.toLocaleString('en')} memories)`)
	await printMachine(drivers.includes('postgres') ? process.env.BENCH_DATABASE_URL : null)
	const rows: Cell[][] = []
	for (const driver of drivers) {
		if (!(await benchDriver(driver, rows))) {
			note('not available yet: the server has no POST /v4/profile route.')
			return
		}
	}
	printTable('POST /v4/profile (ms)', ['driver', 'request', ...LATENCY_HEADERS], rows)
}

await main()
