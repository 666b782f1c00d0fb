/**
 * Ingest: acknowledgement latency of POST /v3/documents with 1 and 16 concurrent clients, and pipeline throughput
 * (documents per second from queued to done, instant dreaming) for 1 KB prose, 1 KB chat and 20 KB prose documents;
 * and 1 KB chat with the default dynamic dreaming, timed until every document's memories are formed.
 *
 *   bun bench/ingest.ts [--driver embedded|postgres] [--quick] [--only ack,1 KB chat,...]
 */

import { TextGenerator } from '../testkit/text.ts'
import { machineBusySeconds, processBusySeconds } from './lib/cpu.ts'
import { listDocuments, waitUntilDreamed, waitUntilProcessed } from './lib/documents.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { type EndpointResult, LATENCY_HEADERS, latencyCells, measureEndpoint } from './lib/measure.ts'
import { startServer, startWorker } from './lib/server.ts'
import { summarize } from './lib/stats.ts'
import { createStore, type Driver, driversToRun, flagValue, prepareStore, QUICK } from './lib/store.ts'
import { type Cell, fixed, heading, ms, note, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const ACK_REQUESTS = { 1: QUICK ? 50 : 200, 16: QUICK ? 160 : 800 } as Record<number, number>
/**
 * Formations of one container run one at a time (they link against each other), so one container is the worst case;
 * 16 containers is many users writing at once.
 */
const PIPELINE_RUNS = [
	{ name: '1 KB prose', bytes: 1_024, kind: 'prose', count: QUICK ? 100 : 500, containers: 1, dreaming: 'instant' },
	{ name: '1 KB chat', bytes: 1_024, kind: 'chat', count: QUICK ? 100 : 500, containers: 1, dreaming: 'instant' },
	{
		name: '1 KB chat in 16 containers',
		bytes: 1_024,
		kind: 'chat',
		count: QUICK ? 160 : 800,
		containers: 16,
		dreaming: 'instant',
	},
	// The default: documents are done first, then each container's memories form in batches once it is quiet.
	{
		name: '1 KB chat in 16 containers (dynamic dreaming)',
		bytes: 1_024,
		kind: 'chat',
		count: QUICK ? 160 : 800,
		containers: 16,
		dreaming: 'dynamic',
	},
	{ name: '20 KB prose', bytes: 20_480, kind: 'prose', count: QUICK ? 30 : 150, containers: 1, dreaming: 'instant' },
] as const
/** Dynamic dreaming's quiet interval for the bench server (default 30 s): a container forms 1 s after it went quiet. */
const DREAMING_QUIET_SECONDS = '1'
const DRAIN_TIMEOUT_MS = 15 * 60_000
/** `--only`: the parts to run (`ack` and pipeline run names), to look at one of them alone. */
const ONLY = flagValue(process.argv.slice(2), 'only')?.split(',')
const runs = (name: string) => ONLY === undefined || ONLY.includes(name)

/** Mean milliseconds per pipeline stage, from the stage records of a sample of documents (GET /v3/documents/{id}). */
async function stageTimes(client: BenchClient, ids: string[]): Promise<Record<string, number>> {
	const totals: Record<string, number[]> = {}
	for (const id of ids.slice(0, 50)) {
		const reply = await client.get(`/v3/documents/${id}`)
		for (const stage of (reply.body?.stages ?? []) as { stage: string; startedAt: string; endedAt: string | null }[]) {
			if (!stage.endedAt) continue
			const list = totals[stage.stage] ?? []
			list.push(Date.parse(stage.endedAt) - Date.parse(stage.startedAt))
			totals[stage.stage] = list
		}
	}
	return Object.fromEntries(
		Object.entries(totals).map(([stage, values]) => [stage, values.reduce((a, b) => a + b, 0) / values.length]),
	)
}

interface PipelineRow {
	driver: Driver
	run: string
	documents: number
	postSeconds: number
	perSecond: number
	latency: { p50: number; p95: number }
	failed: number
	/** Latest memories in the run's containers afterwards (POST /v4/memories/list). */
	memories: number
	/** Machine processor time per document (every process), from posting the first until the last is done. */
	cpuMsPerDocument: number
	/** The server process's share of it (the rest is the database and the bench's clients). */
	serverCpuMsPerDocument: number
	/** Cores busy on average over the same span. */
	coresBusy: number
	stages: Record<string, number>
}

async function countMemories(client: BenchClient, containerTags: string[]): Promise<number> {
	const reply = await client.post('/v4/memories/list', { containerTags, limit: 1 })
	if (reply.status !== 200) throw new Error(`memory list answered ${reply.status}`)
	return reply.body.pagination.totalItems as number
}

async function benchDriver(driver: Driver, acks: Cell[][], pipelines: PipelineRow[]): Promise<void> {
	const store = await createStore(driver)
	const generator = new TextGenerator(7, await loadVocabulary())
	try {
		const { key } = await prepareStore(store)
		const server = await startServer(store, { MEMORY_DREAMING_QUIET_SECONDS: DREAMING_QUIET_SECONDS })
		try {
			const client = new BenchClient(server.url, key)
			const bodies = Array.from({ length: 64 }, () => generator.prose(1_024))
			if (runs('ack')) acks.push(...(await measureAcks(client, driver, bodies, 'ack')))
			for (const run of PIPELINE_RUNS.filter((run) => runs(run.name))) {
				const base = `pipeline-${run.name.replaceAll(/[^a-zA-Z0-9]+/g, '-')}`
				const tags = Array.from({ length: run.containers }, (_, i) => (run.containers === 1 ? base : `${base}-${i}`))
				const contents = Array.from({ length: run.count }, () =>
					run.kind === 'chat' ? generator.chat(run.bytes) : generator.prose(run.bytes),
				)
				const posting = performance.now()
				const busyBefore = await machineBusySeconds()
				const serverBusyBefore = await processBusySeconds(server.pid)
				const posted = await measureEndpoint(
					client,
					'/v3/documents',
					(i) => ({ content: contents[i], containerTag: tags[i % tags.length], dreaming: run.dreaming }),
					{ concurrency: 16, requests: run.count, maxMs: 5 * 60_000 },
				)
				const postSeconds = (performance.now() - posting) / 1000
				const firstExpected = Math.ceil(posted.client.count / tags.length)
				const first = await waitUntilProcessed(client, tags[0]!, firstExpected, DRAIN_TIMEOUT_MS)
				// With dynamic dreaming a document is updated a last time when its memories are formed.
				const documents =
					run.dreaming === 'dynamic'
						? await waitUntilDreamed(client, tags, DRAIN_TIMEOUT_MS)
						: [...first, ...(await Promise.all(tags.slice(1).map((tag) => listDocuments(client, tag)))).flat()]
				const busySeconds = busyBefore === null ? Number.NaN : (await machineBusySeconds())! - busyBefore
				const serverBusySeconds =
					serverBusyBefore === null ? Number.NaN : (await processBusySeconds(server.pid))! - serverBusyBefore
				const wallSeconds = (performance.now() - posting) / 1000
				const created = documents.map((d) => Date.parse(d.createdAt))
				const finished = documents.map((d) => Date.parse(d.updatedAt))
				const spanSeconds = (Math.max(...finished) - Math.min(...created)) / 1000
				const inPipeline = summarize(documents.map((d) => Date.parse(d.updatedAt) - Date.parse(d.createdAt)))
				const failed = documents.find((d) => d.status === 'failed')
				if (failed) {
					const detail = await client.get(`/v3/documents/${failed.id}`)
					const cause = server
						.log()
						.split('\n')
						.findLast((line) => line.includes(failed.id))
					note(
						`${driver} ${run.name}: documents failed, e.g. ${failed.id}: ${detail.body?.error ?? 'no error recorded'}${cause ? `; the service logged: ${cause}` : ''}`,
					)
				}
				pipelines.push({
					driver,
					run: run.name,
					documents: documents.length,
					postSeconds,
					perSecond: documents.length / spanSeconds,
					latency: { p50: inPipeline.p50, p95: inPipeline.p95 },
					failed: documents.filter((d) => d.status === 'failed').length,
					memories: await countMemories(client, tags),
					cpuMsPerDocument: (busySeconds * 1000) / documents.length,
					serverCpuMsPerDocument: (serverBusySeconds * 1000) / documents.length,
					coresBusy: busySeconds / wallSeconds,
					stages: await stageTimes(
						client,
						documents.map((d) => d.id),
					),
				})
			}
		} finally {
			await server.stop()
		}
		// PostgreSQL can run the API and the pipeline in separate processes (--role): the operating system then
		// shares the cores between them, instead of the pipeline's work queueing in front of requests in one event loop.
		if (driver === 'postgres' && runs('ack')) {
			const api = await startServer(store, {}, 120_000, ['--role', 'api'])
			const bodies = Array.from({ length: 64 }, () => generator.prose(1_024))
			try {
				const client = new BenchClient(api.url, key)
				// The API's own capacity: nothing processes what it acknowledges (the documents stay queued).
				acks.push(...(await measureAcks(client, 'postgres, api process alone', bodies, 'api-ack', false)))
				const worker = startWorker(store)
				try {
					acks.push(...(await measureAcks(client, 'postgres, api + worker processes', bodies, 'split-ack')))
				} finally {
					await worker.stop()
				}
			} finally {
				await api.stop()
			}
		}
	} finally {
		await store.dispose()
	}
}

/**
 * Acknowledgement latency at 1 and 16 clients, measured while the pipeline works through what was acknowledged
 * before (with `drain`, each round waits until it is processed).
 */
async function measureAcks(
	client: BenchClient,
	label: string,
	bodies: string[],
	tagPrefix: string,
	drain = true,
): Promise<Cell[][]> {
	const rows: Cell[][] = []
	for (const concurrency of [1, 16]) {
		const tag = `${tagPrefix}-${concurrency}`
		const result: EndpointResult = await measureEndpoint(
			client,
			'/v3/documents',
			(i) => ({ content: `${i} ${bodies[i % bodies.length]}`, containerTag: tag, dreaming: 'instant' }),
			{ concurrency, requests: ACK_REQUESTS[concurrency]!, maxMs: 60_000 },
		)
		rows.push([label, ...latencyCells(result)])
		if (drain) await waitUntilProcessed(client, tag, result.client.count, DRAIN_TIMEOUT_MS)
	}
	return rows
}

async function main() {
	const drivers = driversToRun()
	heading('Ingest')
	await printMachine(drivers.includes('postgres') ? process.env.BENCH_DATABASE_URL : null)
	console.log(
		`Server: \`bun server/main.ts\` (one process, MEMORY_WORKER_CONCURRENCY ${process.env.MEMORY_WORKER_CONCURRENCY || '4 (default)'}, local embedder), fresh store per driver. Times in ms.`,
	)
	const acks: Cell[][] = []
	const pipelines: PipelineRow[] = []
	for (const driver of drivers) await benchDriver(driver, acks, pipelines)
	printTable(
		'POST /v3/documents acknowledgement (1 KB documents, pipeline running meanwhile)',
		['driver', ...LATENCY_HEADERS],
		acks,
	)
	printTable(
		'Pipeline throughput, queued to done (instant dreaming; with dynamic dreaming until memories are formed, quiet interval 1 s; documents posted by 16 clients)',
		[
			'driver',
			'documents',
			'count',
			'docs/s',
			'posting took (s)',
			'queued→done p50 (ms)',
			'queued→done p95 (ms)',
			'failed',
			'memories',
			'CPU ms/doc',
			'server CPU ms/doc',
			'cores busy',
		],
		pipelines.map((row) => [
			row.driver,
			row.run,
			row.documents,
			fixed(row.perSecond),
			fixed(row.postSeconds),
			ms(row.latency.p50),
			ms(row.latency.p95),
			row.failed,
			row.memories,
			fixed(row.cpuMsPerDocument),
			fixed(row.serverCpuMsPerDocument),
			fixed(row.coresBusy, 2),
		]),
	)
	const stages = [...new Set(pipelines.flatMap((row) => Object.keys(row.stages)))]
	printTable(
		'Where a document spends its pipeline time (mean ms per stage, 50 documents; stages of documents in flight together overlap)',
		['driver', 'documents', ...stages],
		pipelines.map((row) => [row.driver, row.run, ...stages.map((stage) => ms(row.stages[stage] ?? Number.NaN))]),
	)
}

await main()
