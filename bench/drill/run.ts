/**
 * The reliability drill: `bun run drill`. Hostile input over every route, size refusals, file bombs, SSRF, tenant
 * fuzzing, a bounded load, kill -9 of the embedded server and (with DATABASE_URL) of api and worker processes on
 * PostgreSQL. Loopback only. Prints one table: tried, expected, observed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { startGithubEmulator } from '../../testkit/emulators/github.ts'
import { startNotionEmulator } from '../../testkit/emulators/notion.ts'
import { runCorpus } from '../../testkit/hostile/corpus.ts'
import { HOSTILE_VALUES } from '../../testkit/hostile/hostile-values.ts'
import { operationsOf } from '../../testkit/hostile/operations.ts'
import { sendTo } from '../../testkit/hostile/send.ts'
import { ssrfTargets } from '../../testkit/hostile/ssrf.ts'
import { runTenantFuzz } from '../../testkit/hostile/tenants.ts'
import { describeMachine } from '../lib/machine.ts'
import { markdownTable } from '../lib/table.ts'
import { fileBombs } from './bombs.ts'
import { ingestThroughCrashes } from './crash.ts'
import { boundedLoad } from './load.ts'
import { malformedHosts, searchOracle } from './probes.ts'
import { drillRepository, type Providers, providerEnv, securityRows } from './security.ts'
import { createKey, type DrillProcess, healthWatch, settle, startDrillService } from './service.ts'
import { sizeRefusals } from './sizes.ts'
import { webhookFloods } from './webhooks.ts'

const GiB = 1024 ** 3
const MiB = 1024 ** 2
const rows: [string, string, string, string][] = []
const row = (tried: string, expected: string, observed: string, ok: boolean) => {
	rows.push([tried, expected, observed, ok ? 'yes' : '**no**'])
	console.error(`${ok ? 'ok ' : 'NO '} ${tried}: ${observed}`)
}
const cacheDir = process.env.MEMORY_CACHE_DIR ?? join(tmpdir(), 'memory-service-test-embedder-cache')

async function embeddedPhase() {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-drill-'))
	const env = {
		MEMORY_DATA_DIR: dataDir,
		MEMORY_CACHE_DIR: cacheDir,
		MEMORY_URL_ALLOWLIST: '',
		...providerEnv(providers),
	}
	const keyA = await createKey(env, 'drill-a')
	const keyB = await createKey(env, 'drill-b')
	const keyC = await createKey(env, 'drill-c')
	let server = await startDrillService(env)
	const health = healthWatch(() => server.url)
	try {
		const send = sendTo(server.url, keyA)
		const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, unknown>
		const operations = operationsOf(openapi)
		const corpus = await runCorpus(send, operations, HOSTILE_VALUES)
		row(
			`hostile corpus: ${HOSTILE_VALUES.length} values × every field and parameter of ${operations.length} operations`,
			'0 5xx, 0 non-JSON errors, NUL/surrogates 400 naming the field',
			`${corpus.tried} requests: ${corpus.serverErrors} 5xx, ${corpus.nonJsonErrors} non-JSON, ${corpus.unnamedRefusals} unnamed`,
			corpus.serverErrors + corpus.nonJsonErrors + corpus.unnamedRefusals === 0,
		)
		for (const finding of corpus.findings.slice(0, 20)) console.error('  ', JSON.stringify(finding))

		const count = async () => {
			const response = await send('POST', '/v3/documents/list', { body: '{}' })
			return ((await response.json()) as { pagination: { totalItems: number } }).pagination.totalItems
		}
		for (const size of await sizeRefusals(server.url, keyA, count))
			row(size.tried, size.expected, size.observed, size.ok)

		for (const probe of [
			await malformedHosts(server.url, 'embedded'),
			await searchOracle(server.url, keyA, 'embedded'),
			...(await securityRows(server.url, { admin: keyA, other: keyC }, 'embedded', providers)),
		])
			row(probe.tried, probe.expected, probe.observed, probe.ok)
		for (const flood of await webhookFloods(server.url, 'embedded'))
			row(flood.tried, flood.expected, flood.observed, flood.ok)

		const tenants = await runTenantFuzz(send, sendTo(server.url, keyB), (id) => settle(server.url, keyA, id))
		row(
			'tenant fuzzing: B uses A’s ids, customIds, tag and guessed ids on every route',
			'0 leaks, 0 changes',
			`${tenants.tried} attempts: ${tenants.leaks} leaks, ${tenants.tampered} changed`,
			tenants.leaks + tenants.tampered === 0,
		)

		let hits = 0
		const canary = Bun.serve({
			port: 0,
			hostname: '127.0.0.1',
			fetch: () => {
				hits++
				return new Response('canary')
			},
		})
		const targets = ssrfTargets(canary.port!)
		const statuses: string[] = []
		for (const target of targets) {
			const response = await send('POST', '/v3/documents', {
				body: JSON.stringify({ content: target.url, containerTag: 'ssrf' }),
			})
			const { id } = (await response.json()) as { id: string }
			statuses.push(await settle(server.url, keyA, id, 60_000))
		}
		canary.stop(true)
		const failed = statuses.filter((s) => s === 'failed').length
		row(
			`SSRF: ${targets.length} URLs (loopback, private, metadata; IPv4 in IPv6 forms)`,
			'0 fetches, every document failed',
			`${hits} fetches, ${failed} of ${targets.length} failed`,
			hits === 0 && failed === targets.length,
		)

		const bombs = fileBombs()
		for (const bomb of bombs) {
			await Bun.sleep(500)
			health.reset()
			const form = new FormData()
			form.set('file', bomb.file)
			form.set('containerTag', 'bombs')
			const response = await fetch(`${server.url}/v3/documents/file`, {
				method: 'POST',
				headers: { authorization: `Bearer ${keyA}` },
				body: form,
			})
			const ack = (await response.json()) as { id?: string; error?: string }
			const status = ack.id ? await settle(server.url, keyA, ack.id, 120_000) : `${response.status} ${ack.error}`
			const peak = server.peakBytes()
			row(
				`${bomb.name}, ${Math.round(bomb.file.size / 1024)} KiB upload`,
				'refused or failed with a reason; peak < 1.5 GB; health < 1 s',
				`${status}; peak ${(peak / MiB).toFixed(0)} MiB; health max ${Math.round(health.worst())} ms`,
				(status === 'failed' || status.startsWith('4')) && peak < 1.5 * GiB && health.worst() < 1000,
			)
		}

		health.reset()
		const load = await boundedLoad(server.url, keyA)
		row(
			'bounded load: 8 clients of mixed traffic, ≤ 600 requests / 30 s',
			'0 errors, health < 1 s',
			`${load.requests} requests, ${load.errors} errors, p95 ${Math.round(load.p95Ms)} ms, health max ${Math.round(health.worst())} ms`,
			load.errors === 0 && health.worst() < 1000,
		)

		const crash = await ingestThroughCrashes(
			() => server,
			keyA,
			60,
			[
				{
					after: 20,
					label: 'kill -9 at 20, restart at once',
					run: async () => {
						await server.crash()
						server = await startDrillService(env)
					},
				},
			],
			'crash_embedded',
		)
		row(
			'kill -9 of the embedded server mid-ingest (60 documents), restart on the same store',
			'0 lost, 0 duplicated, all done',
			`${crash.done}/${crash.sent} done, ${crash.lost} lost, ${crash.duplicated} duplicated`,
			crash.lost + crash.duplicated === 0 && crash.done === crash.sent,
		)

		health.reset()
		// The server was restarted above: a new port.
		const token = await sendTo(server.url, keyA)('POST', '/v3/documents', {
			body: JSON.stringify({ content: 'A'.repeat(MiB), containerTag: 'token' }),
		})
		const tokenId = ((await token.json()) as { id: string }).id
		const tokenStatus = await settle(server.url, keyA, tokenId, 90_000)
		row(
			'1 MB of text without whitespace',
			'done or failed within 90 s; health < 1 s',
			`${tokenStatus}; health max ${Math.round(health.worst())} ms; peak ${(server.peakBytes() / MiB).toFixed(0)} MiB`,
			(tokenStatus === 'done' || tokenStatus === 'failed') && health.worst() < 1000,
		)
	} finally {
		health.stop()
		await server.crash()
		rmSync(dataDir, { recursive: true, force: true })
	}
}

/** A database of its own on the given server, dropped afterwards. */
async function withDrillDatabase(serverUrl: string, use: (url: string) => Promise<void>) {
	const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
	const name = `memory_drill_${Date.now()}`
	await admin.unsafe(`CREATE DATABASE ${name}`)
	const url = new URL(serverUrl)
	url.pathname = `/${name}`
	try {
		await use(url.toString())
	} finally {
		await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
		await admin.end()
	}
}

async function postgresPhase(databaseUrl: string) {
	const env = { DATABASE_URL: databaseUrl, MEMORY_CACHE_DIR: cacheDir, ...providerEnv(providers) }
	const key = await createKey(env, `drill-pg-${Date.now()}`)
	const other = await createKey(env, `drill-pg-other-${Date.now()}`)
	let api: DrillProcess = await startDrillService(env, ['--role=api'])
	let worker: DrillProcess = await startDrillService(env, ['--role=worker'])
	try {
		for (const probe of await securityRows(api.url, { admin: key, other }, 'PostgreSQL', providers))
			row(probe.tried, probe.expected, probe.observed, probe.ok)
		for (const flood of await webhookFloods(api.url, 'PostgreSQL'))
			row(flood.tried, flood.expected, flood.observed, flood.ok)

		const crash = await ingestThroughCrashes(
			() => api,
			key,
			90,
			[
				{
					after: 30,
					label: 'kill -9 worker at 30',
					run: async () => {
						await worker.crash()
						worker = await startDrillService(env, ['--role=worker'])
					},
				},
				{
					after: 60,
					label: 'kill -9 api at 60',
					run: async () => {
						await api.crash()
						api = await startDrillService(env, ['--role=api'])
					},
				},
			],
			`crash_pg_${Date.now()}`,
		)
		row(
			'PostgreSQL: kill -9 of worker, then of api, mid-ingest (90 documents)',
			'0 lost, 0 duplicated, all done',
			`${crash.done}/${crash.sent} done, ${crash.lost} lost, ${crash.duplicated} duplicated`,
			crash.lost + crash.duplicated === 0 && crash.done === crash.sent,
		)
	} finally {
		await api.crash()
		await worker.crash()
	}
}

/** A phase that throws still leaves its row, and the drill goes on. */
async function phase(name: string, run: () => Promise<void>) {
	try {
		await run()
	} catch (error) {
		row(name, 'completes', `stopped: ${(error as Error).message}`, false)
	}
}

/**
 * `--only=webhooks` (or `--only=security`): the security review's attacks alone (malformed Host, search oracle, OAuth
 * binding, customId race, console paths, GitHub replay, Notion token binding, webhook floods), on the embedded store
 * and (with DATABASE_URL) on PostgreSQL.
 */
async function webhookPhase(databaseUrl: string | undefined) {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-drill-'))
	const env = { MEMORY_DATA_DIR: dataDir, MEMORY_CACHE_DIR: cacheDir, ...providerEnv(providers) }
	const admin = await createKey(env, 'drill-security')
	const other = await createKey(env, 'drill-security-other')
	const embedded = await startDrillService(env)
	try {
		for (const probe of [
			await malformedHosts(embedded.url, 'embedded'),
			await searchOracle(embedded.url, admin, 'embedded'),
			...(await securityRows(embedded.url, { admin, other }, 'embedded', providers)),
		])
			row(probe.tried, probe.expected, probe.observed, probe.ok)
		for (const flood of await webhookFloods(embedded.url, 'embedded'))
			row(flood.tried, flood.expected, flood.observed, flood.ok)
	} finally {
		await embedded.crash()
		rmSync(dataDir, { recursive: true, force: true })
	}
	if (!databaseUrl) return
	await withDrillDatabase(databaseUrl, async (url) => {
		const pgEnv = { DATABASE_URL: url, MEMORY_CACHE_DIR: cacheDir, ...providerEnv(providers) }
		const pgAdmin = await createKey(pgEnv, 'drill-security')
		const pgOther = await createKey(pgEnv, 'drill-security-other')
		const api = await startDrillService(pgEnv, ['--role=api'])
		const worker = await startDrillService(pgEnv, ['--role=worker'])
		try {
			for (const probe of [
				await searchOracle(api.url, pgAdmin, 'PostgreSQL'),
				...(await securityRows(api.url, { admin: pgAdmin, other: pgOther }, 'PostgreSQL', providers)),
			])
				row(probe.tried, probe.expected, probe.observed, probe.ok)
			for (const flood of await webhookFloods(api.url, 'PostgreSQL'))
				row(flood.tried, flood.expected, flood.observed, flood.ok)
		} finally {
			await api.crash()
			await worker.crash()
		}
	})
}

const started = new Date()
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL
// The GitHub and Notion connectors of every service the drill starts talk to these emulators (OAuth, hooks, signed
// deliveries).
const providers: Providers = { github: startGithubEmulator(), notion: startNotionEmulator() }
drillRepository(providers.github)
if (process.argv.includes('--only=webhooks') || process.argv.includes('--only=security')) {
	await phase('webhook floods', () => webhookPhase(databaseUrl))
} else {
	await phase('embedded phase', embeddedPhase)
	if (databaseUrl) await phase('PostgreSQL phase', () => withDrillDatabase(databaseUrl, postgresPhase))
	else row('PostgreSQL kill -9 of api and worker', 'run with DATABASE_URL', 'skipped: no DATABASE_URL', false)
}

console.log(`Reliability drill, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`)
console.log(await describeMachine(databaseUrl))
console.log()
console.log(markdownTable(['tried', 'expected', 'observed', 'held'], rows))
providers.github.stop()
providers.notion.stop()
process.exit(rows.every((r) => r[3] === 'yes') ? 0 : 1)
