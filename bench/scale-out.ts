/**
 * Scale-out on one PostgreSQL: `--role api` and `--role worker` processes, one of each against two of each, on
 * fresh databases in turn. 16 clients post `--documents` 1 KB documents (default 600) spread over the api processes
 * while one client searches (`/v4/search` hybrid, limit 10) through them; measured: acknowledgement and search
 * latency, and documents per second from the first post until every document is done.
 *
 *   BENCH_DATABASE_URL=postgres://... bun bench/scale-out.ts [--documents 600] [--layouts 1x1,2x2]
 */

import { BENCH_DATABASE_URL } from './lib/database.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { numberedProse, numberedQuery } from './lib/numbered-texts.ts'
import { type ServerProcess, startServer, startWorker } from './lib/server.ts'
import { summarize } from './lib/stats.ts'
import { createStore, flagValue, prepareStore } from './lib/store.ts'
import { fixed, printTable } from './lib/table.ts'

const argv = process.argv.slice(2)
const documents = Number(flagValue(argv, 'documents') ?? 600)
const layouts = (flagValue(argv, 'layouts') ?? '1x1,2x2').split(',').map((layout) => {
	const [apis, workers] = layout.split('x').map(Number)
	return { apis: apis!, workers: workers! }
})
const CLIENTS = 16

if (!BENCH_DATABASE_URL) {
	console.error('scale-out needs BENCH_DATABASE_URL (an admin URL of a PostgreSQL with pgvector)')
	process.exit(1)
}

async function measure(apis: number, workers: number) {
	const store = await createStore('postgres')
	const { key } = await prepareStore(store)
	const servers: ServerProcess[] = []
	const workerProcesses: { stop(): Promise<void> }[] = []
	try {
		for (let i = 0; i < apis; i++) servers.push(await startServer(store, {}, 120_000, ['--role', 'api']))
		for (let i = 0; i < workers; i++) workerProcesses.push(startWorker(store))
		const clients = servers.map((server) => new BenchClient(server.url, key))
		const acks: number[] = []
		const searches: number[] = []
		let next = 0
		let posting = true
		const started = performance.now()
		const poster = async () => {
			while (next < documents) {
				const i = next++
				const reply = await clients[i % clients.length]!.post('/v3/documents', {
					content: numberedProse(i),
					containerTag: `scale-${i % 16}`,
					dreaming: 'instant',
				})
				if (reply.status !== 200) throw new Error(`add answered ${reply.status}`)
				acks.push(reply.serverMs ?? reply.ms)
			}
		}
		const searcher = async () => {
			for (let i = 0; posting; i++) {
				const reply = await clients[i % clients.length]!.post('/v4/search', {
					q: numberedQuery(i),
					containerTag: `scale-${i % 16}`,
					searchMode: 'hybrid',
					limit: 10,
				})
				if (reply.status !== 200) throw new Error(`search answered ${reply.status}`)
				searches.push(reply.serverMs ?? reply.ms)
				await Bun.sleep(20)
			}
		}
		const searching = searcher()
		await Promise.all(Array.from({ length: CLIENTS }, poster))
		for (;;) {
			const reply = await clients[0]!.get('/v3/documents/processing')
			if (reply.status === 200 && reply.body.totalCount === 0) break
			await Bun.sleep(200)
		}
		const seconds = (performance.now() - started) / 1000
		posting = false
		await searching
		const ack = summarize(acks)
		const search = summarize(searches)
		return [
			`${apis} api + ${workers} worker`,
			documents,
			fixed(documents / seconds),
			`${fixed(ack.p50)} / ${fixed(ack.p95)}`,
			`${fixed(search.p50)} / ${fixed(search.p95)}`,
			searches.length,
		]
	} finally {
		for (const server of servers) await server.stop()
		for (const worker of workerProcesses) await worker.stop()
		await store.dispose()
	}
}

await printMachine(BENCH_DATABASE_URL)
const rows: (string | number)[][] = []
for (const { apis, workers } of layouts) {
	rows.push(await measure(apis, workers))
	console.error(`[scale-out] ${rows.at(-1)!.join(' | ')}`)
}
printTable(
	'Scale-out on one PostgreSQL (1 KB documents, 16 posting clients, 1 searching)',
	['processes', 'documents', 'docs/s to done', 'add server p50 / p95 ms', 'search server p50 / p95 ms', 'searches'],
	rows,
)
