/**
 * Search while the service works: `/v4/search` hybrid (limit 10, one client, a probe every 20 ms) on a seeded
 * container, idle and while background work runs in other containers of the same organization:
 *
 * - `ingest`: 1 KB documents posted at `--rate` a second (default 20) for `--seconds` (default 20), instant dreaming;
 * - `dreaming`: 200 chat documents in 10 containers with dynamic dreaming, then their memory formation;
 * - `sync`: a GitHub repository of `--files` Markdown files (default 1,000) on the local emulator, synced.
 *
 * Idle probes run before the loads and after them; the quieter of the two is the baseline. With `--root DIR` the
 * same runs against another checkout (B, e.g. a worktree of main) on its own store and server, A B then B A, so the
 * machine's load falls on both; the load goes to one side at a time.
 *
 *   bun bench/search-under-load.ts [--root ../wt-base] [--driver embedded|postgres] [--phases ingest,dreaming,sync]
 *     [--rounds 1] [--rate 20] [--seconds 20] [--files 1000]
 */

import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { authorizeThroughEmulator } from '../testkit/connections.ts'
import { startGithubEmulator } from '../testkit/emulators/github.ts'
import type { TestService } from '../testkit/service.ts'
import { commitOf, prepareKey } from './lib/checkout.ts'
import { machineBusySeconds, processBusySeconds } from './lib/cpu.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { numberedChat, numberedProse, numberedQuery } from './lib/numbered-texts.ts'
import { type ServerProcess, startServer } from './lib/server.ts'
import { summarize } from './lib/stats.ts'
import { type BenchStore, createStore, type Driver, flagValue } from './lib/store.ts'
import { fixed, note, printTable } from './lib/table.ts'

const HERE = resolve(join(import.meta.dir, '..'))
const argv = process.argv.slice(2)
const driver: Driver = flagValue(argv, 'driver') === 'postgres' ? 'postgres' : 'embedded'
const rootB = flagValue(argv, 'root')
const phases = (flagValue(argv, 'phases') ?? 'ingest,dreaming,sync').split(',')
const rounds = Number(flagValue(argv, 'rounds') ?? 1)
const rate = Number(flagValue(argv, 'rate') ?? 20)
const seconds = Number(flagValue(argv, 'seconds') ?? 20)
const files = Number(flagValue(argv, 'files') ?? 1000)
const PROBE_TAG = 'probe'
const SEED_DOCUMENTS = 300

const github = startGithubEmulator()

interface Side {
	label: string
	commit: string
	store: BenchStore
	server: ServerProcess
	client: BenchClient
}

interface Probe {
	serverMs: number
	clientMs: number
}

/** Processor seconds spent during a phase: the server process, this one (the probing client and the emulator), all. */
interface Busy {
	server: number
	bench: number
	machine: number
	wall: number
}

async function busyNow(side: Side): Promise<Busy> {
	return {
		server: (await processBusySeconds(side.server.pid)) ?? Number.NaN,
		bench: (await processBusySeconds(process.pid)) ?? Number.NaN,
		machine: (await machineBusySeconds()) ?? Number.NaN,
		wall: performance.now() / 1000,
	}
}

/** `a` plus `sign` times `b`, field by field: a phase's spending (after less before), or two phases together. */
function combineBusy(a: Busy, b: Busy, sign: 1 | -1): Busy {
	return {
		server: a.server + sign * b.server,
		bench: a.bench + sign * b.bench,
		machine: a.machine + sign * b.machine,
		wall: a.wall + sign * b.wall,
	}
}

async function openSide(label: string, root: string): Promise<Side> {
	const store = await createStore(driver)
	const key = prepareKey(root, store)
	const server = await startServer(
		store,
		{
			MEMORY_CONNECTORS: 'github',
			GITHUB_API_URL: github.url,
			GITHUB_WEB_URL: github.url,
			GITHUB_CLIENT_ID: github.clientId,
			GITHUB_CLIENT_SECRET: github.clientSecret,
			MEMORY_DREAMING_QUIET_SECONDS: '1',
			MEMORY_DREAMING_MAX_WAIT_SECONDS: '2',
		},
		180_000,
		[],
		root,
	)
	return { label, commit: commitOf(root), store, server, client: new BenchClient(server.url, key) }
}

/** The connection helpers speak to a TestService; this one is a server process. */
function asTestService(side: Side): TestService {
	const request: TestService['request'] = (method, path, { body, key = side.client.key, headers = {} } = {}) =>
		fetch(`${side.client.baseUrl}${path}`, {
			method,
			redirect: 'manual',
			headers: {
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
				...(key ? { authorization: `Bearer ${key}` } : {}),
				...headers,
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		})
	return {
		key: side.client.key,
		request,
		async json(method, path, body, key) {
			const response = await request(method, path, { body, key: key ?? side.client.key })
			const text = await response.text()
			return { status: response.status, body: text ? JSON.parse(text) : null }
		},
	} as TestService
}

async function waitIdle(side: Side, timeoutMs = 600_000): Promise<void> {
	const deadline = performance.now() + timeoutMs
	for (;;) {
		const reply = await side.client.get('/v3/documents/processing')
		if (reply.status === 200 && reply.body.totalCount === 0) return
		if (performance.now() > deadline) throw new Error(`${side.label}: still processing after ${timeoutMs} ms`)
		await Bun.sleep(250)
	}
}

async function seed(side: Side): Promise<void> {
	for (let i = 0; i < SEED_DOCUMENTS; i += 20) {
		await Promise.all(
			Array.from({ length: 20 }, (_, k) =>
				side.client.post('/v3/documents', {
					content: numberedProse(i + k),
					containerTag: PROBE_TAG,
					dreaming: 'instant',
				}),
			),
		)
	}
	await waitIdle(side)
}

/** Probes one at a time, 20 ms apart, until `until` resolves (or for `count` probes). */
async function probe(side: Side, until: Promise<unknown> | number): Promise<Probe[]> {
	const probes: Probe[] = []
	let done = false
	if (typeof until !== 'number') void until.finally(() => (done = true))
	for (let i = 0; typeof until === 'number' ? i < until : !done; i++) {
		const reply = await side.client.post('/v4/search', {
			q: numberedQuery(i),
			containerTag: PROBE_TAG,
			searchMode: 'hybrid',
			limit: 10,
		})
		if (reply.status !== 200) throw new Error(`${side.label}: search answered ${reply.status}`)
		probes.push({ serverMs: reply.serverMs ?? Number.NaN, clientMs: reply.ms })
		await Bun.sleep(20)
	}
	return probes
}

async function ingestLoad(side: Side, round: number): Promise<void> {
	const total = rate * seconds
	const started = performance.now()
	const posts: Promise<unknown>[] = []
	for (let i = 0; i < total; i++) {
		const due = started + (i * 1000) / rate
		const wait = due - performance.now()
		if (wait > 0) await Bun.sleep(wait)
		posts.push(
			side.client.post('/v3/documents', {
				content: numberedProse(10_000 + i),
				containerTag: `ingest-${round}`,
				dreaming: 'instant',
			}),
		)
	}
	await Promise.all(posts)
	await waitIdle(side)
}

async function dreamingLoad(side: Side, round: number): Promise<void> {
	const posts = Array.from({ length: 200 }, (_, i) =>
		side.client.post('/v3/documents', {
			content: numberedChat(i),
			containerTag: `dreaming-${round}-${i % 10}`,
			dreaming: 'dynamic',
		}),
	)
	await Promise.all(posts)
	await waitIdle(side)
	// Formation runs once each container has been quiet; wait until no document still waits for it.
	const deadline = performance.now() + 600_000
	for (;;) {
		const lists = await Promise.all(
			Array.from({ length: 10 }, (_, c) =>
				side.client.post('/v3/documents/list', { containerTags: [`dreaming-${round}-${c}`], limit: 100 }),
			),
		)
		const waiting = lists.flatMap((reply) => (reply.body.memories ?? []) as { dreamingStatus?: string }[])
		if (waiting.every((d) => d.dreamingStatus !== 'dreaming')) return
		if (performance.now() > deadline) throw new Error(`${side.label}: formation still running after 600 s`)
		await Bun.sleep(250)
	}
}

async function syncLoad(side: Side, round: number): Promise<void> {
	const repo = `bench/${side.label.toLowerCase()}-${round}`
	const content: Record<string, string> = {}
	for (let i = 0; i < files; i++) content[`docs/page-${i}.md`] = `# Page ${i}\n\n${numberedProse(20_000 + i)}`
	github.createRepo(repo, content)
	const t = asTestService(side)
	const { created } = await authorizeThroughEmulator(t, 'github', { containerTag: `sync-${round}` })
	const id = created.body.id as string
	const configured = await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ full_name: repo }] })
	if (configured.status !== 200) throw new Error(`${side.label}: configure answered ${configured.status}`)
	const deadline = performance.now() + 900_000
	for (;;) {
		const list = await side.client.post('/v3/documents/list', { containerTags: [`sync-${round}`], limit: 1 })
		const count = Number(list.body?.pagination?.totalItems ?? 0)
		if (count >= files) break
		if (performance.now() > deadline) throw new Error(`${side.label}: ${count} of ${files} imported after 900 s`)
		await Bun.sleep(250)
	}
	await waitIdle(side)
}

const LOADS: Record<string, (side: Side, round: number) => Promise<void>> = {
	ingest: ingestLoad,
	dreaming: dreamingLoad,
	sync: syncLoad,
}

/** The 1, 5 and 15 minute load averages. */
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

async function main() {
	await printMachine()
	const sides = [await openSide('A', HERE)]
	if (rootB) sides.push(await openSide('B', resolve(rootB)))
	try {
		await Promise.all(sides.map(seed))
		const samples = new Map<string, Probe[]>()
		const add = (key: string, list: Probe[]) => samples.set(key, [...(samples.get(key) ?? []), ...list])
		const busy = new Map<string, Busy>()
		const addBusy = (key: string, spent: Busy) => {
			const sum = busy.get(key)
			busy.set(key, sum ? combineBusy(sum, spent, 1) : spent)
		}
		let turn = 0
		for (let round = 0; round < rounds; round++) {
			for (const phase of ['idle', ...phases, 'idle after']) {
				const order = turn++ % 2 === 0 ? sides : [...sides].reverse()
				for (const side of order) {
					const load = loadAverage()
					const started = performance.now()
					const before = await busyNow(side)
					const probes = phase.startsWith('idle')
						? await probe(side, 150)
						: await probe(side, LOADS[phase]!(side, round))
					const took = ((performance.now() - started) / 1000).toFixed(1)
					console.error(
						`[search-under-load] ${side.label} ${phase} round ${round}: ${probes.length} probes in ${took} s, load ${load}`,
					)
					add(`${side.label}|${phase}`, probes)
					addBusy(`${side.label}|${phase}`, combineBusy(await busyNow(side), before, -1))
					if (!phase.startsWith('idle')) await waitIdle(side)
				}
			}
		}
		const rows: (string | number)[][] = []
		for (const side of sides) {
			// The quieter of the two idle runs (before the loads and after them) is the baseline.
			const idle = (time: keyof Probe) =>
				Math.min(
					...['idle', 'idle after'].map(
						(phase) => summarize((samples.get(`${side.label}|${phase}`) ?? []).map((p) => p[time])).p95,
					),
				)
			const idleServer = idle('serverMs')
			const idleClient = idle('clientMs')
			for (const phase of ['idle', ...phases, 'idle after']) {
				const list = samples.get(`${side.label}|${phase}`) ?? []
				const server = summarize(list.map((p) => p.serverMs))
				const client = summarize(list.map((p) => p.clientMs))
				const spent = busy.get(`${side.label}|${phase}`)
				const cores = (seconds: number) => (spent ? fixed(seconds / spent.wall, 2) : '–')
				rows.push([
					`${side.label} ${side.commit}`,
					phase,
					list.length,
					`${fixed(server.p50)} / ${fixed(server.p95)}`,
					`${fixed(client.p50)} / ${fixed(client.p95)}`,
					`${fixed(server.p95 / idleServer, 2)} / ${fixed(client.p95 / idleClient, 2)}`,
					phase.startsWith('idle') || !spent ? '–' : fixed(spent.wall / rounds),
					spent
						? `${cores(spent.server)} / ${cores(spent.bench)} / ${cores(spent.machine - spent.server - spent.bench)}`
						: '–',
				])
			}
		}
		printTable(
			`Search during background work (${driver}, /v4/search hybrid limit 10, one client)`,
			[
				'checkout',
				'during',
				'probes',
				'server p50 / p95 ms',
				'client p50 / p95 ms',
				'p95 / quieter idle p95: server / client',
				'load done in s',
				'cores busy: server / bench / rest',
			],
			rows,
		)
		note(`rate ${rate}/s for ${seconds} s; dreaming 200 chat documents in 10 containers; sync ${files} files`)
		note(
			'cores busy: processor seconds per second of the phase; bench is this process (the probing client and the emulator), rest is the machine less both (PostgreSQL, the other side when idle, anything else)',
		)
	} finally {
		for (const side of sides) {
			await side.server.stop()
			await side.store.dispose()
		}
		github.stop()
	}
}

await main()
