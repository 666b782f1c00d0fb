/**
 * Connector throughput: N items on a provider's local emulator (GitHub: a repository of Markdown files; Google Drive:
 * Docs; Gmail: threads of two messages; Notion: shared pages, at `--rps` requests a second; OneDrive: Markdown files
 * downloaded through the file ingestion), synced by a real in-process service (embedded store or PostgreSQL, local embedder,
 * no memory extraction), timed from the start of the first sync until every item is imported and until every
 * imported document is searchable (done). Meanwhile, and again once idle, the latency of `POST /v3/search` shows what a
 * running sync costs the API.
 *
 *   bun bench/connector-sync.ts [--provider github|google-drive|gmail|notion|onedrive] [--files 1000] [--rps 3]
 *     [--driver embedded|postgres] [--faults]
 *
 * `--faults`: the emulator's fault layer (testkit/emulators/faults.ts) answers every 100th request with the
 * provider's own rate limit (1 s) and 1 % of the others with a transient 5xx (a seeded draw, the same every run); the
 * report adds the requests the emulator received and the faults it answered. Every item must still be imported.
 *
 * PostgreSQL: BENCH_DATABASE_URL (an admin URL; a database is created and dropped), else a throwaway server is started.
 */
import { github } from '../connectors/github/index.ts'
import { gmail } from '../connectors/gmail/index.ts'
import { googleDrive } from '../connectors/google-drive/index.ts'
import { notion } from '../connectors/notion/index.ts'
import { onedrive } from '../connectors/onedrive/index.ts'
import type { Plugin } from '../core/index.ts'
import { landCallback, openAuthLink } from '../testkit/connections.ts'
import type { FaultLayer } from '../testkit/emulators/faults.ts'
import { startGithubEmulator } from '../testkit/emulators/github.ts'
import { startGoogleEmulator } from '../testkit/emulators/google.ts'
import { addDriveRoutes } from '../testkit/emulators/google-drive.ts'
import { addGmailRoutes } from '../testkit/emulators/google-gmail.ts'
import { startGraphEmulator } from '../testkit/emulators/graph.ts'
import { block, startNotionEmulator } from '../testkit/emulators/notion.ts'
import { stopProvisionedPostgres } from '../testkit/postgres.ts'
import { startTestService, type TestService } from '../testkit/service.ts'
import { random } from '../testkit/text.ts'

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined)
const provider = arg('--provider') ?? 'github'
const files = Number(arg('--files') || 1000) || 1000
const rps = Number(arg('--rps') ?? 3)
const driver = arg('--driver') === 'postgres' ? 'postgres' : 'pglite'
const withFaults = process.argv.includes('--faults')
if (driver === 'postgres' && process.env.BENCH_DATABASE_URL)
	process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const sentence = (i: number) =>
	`The service at station ${i} runs every ${(i % 12) + 1} hours and reports to team ${i % 37}.`

/** The provider's emulator holding the items, the connector pointed at it, and how a connection starts syncing. */
async function setUp(): Promise<{
	stop: () => void
	env: Record<string, string>
	plugin: Plugin
	start: (t: TestService, id: string) => Promise<void>
	faults: FaultLayer
}> {
	if (provider === 'google-drive' || provider === 'gmail') {
		const google = startGoogleEmulator()
		const endpoints = { accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url }
		let plugin: Plugin
		if (provider === 'google-drive') {
			const drive = addDriveRoutes(google)
			for (let i = 0; i < files; i++) drive.doc(`Page ${i}`, `# Page ${i}\n\n${sentence(i)}`)
			plugin = googleDrive(endpoints)
		} else {
			// A mailbox of threads of two messages each: a question and a reply quoting it.
			const mail = await addGmailRoutes(google)
			for (let i = 0; i < files; i++) {
				const { threadId } = mail.deliver({ subject: `Station ${i}`, text: `How often does station ${i} run?` })
				mail.deliver(
					{
						subject: `Re: Station ${i}`,
						text: `${sentence(i)}\n\nOn Monday, Anna wrote:\n> How often does station ${i} run?`,
					},
					{ threadId },
				)
			}
			plugin = gmail(endpoints)
		}
		return {
			stop: () => google.stop(),
			faults: google.faults,
			env: { GOOGLE_CLIENT_ID: google.clientId, GOOGLE_CLIENT_SECRET: google.clientSecret },
			plugin,
			// The first sync lists everything when the authorization completes.
			start: async (_t: TestService, _id: string) => {},
		}
	}
	if (provider === 'notion') {
		const emulator = startNotionEmulator()
		for (let i = 0; i < files; i++) emulator.addPage({ title: `Page ${i}`, blocks: [block.paragraph(sentence(i))] })
		return {
			stop: () => emulator.stop(),
			faults: emulator.faults,
			env: { NOTION_CLIENT_ID: emulator.clientId, NOTION_CLIENT_SECRET: emulator.clientSecret },
			plugin: notion({ apiUrl: emulator.url, requestsPerSecond: rps }),
			// The first sync starts when the authorization completes.
			start: async (_t: TestService, _id: string) => {},
		}
	}
	if (provider === 'onedrive') {
		const emulator = startGraphEmulator({ pageSize: 200 })
		const drive = emulator.drive('bench')
		const folder = drive.addFolder('Pages')
		for (let i = 0; i < files; i++)
			drive.addFile(`page-${i}.md`, `# Page ${i}\n\n${sentence(i)}`, folder, 'text/markdown')
		emulator.consentAs('bench')
		return {
			stop: () => emulator.stop(),
			faults: emulator.faults,
			env: { MICROSOFT_CLIENT_ID: emulator.clientId, MICROSOFT_CLIENT_SECRET: emulator.clientSecret },
			plugin: onedrive({ graphUrl: emulator.url, loginUrl: emulator.url }),
			// The first sync (the whole drive) starts when the authorization completes.
			start: async (_t: TestService, _id: string) => {},
		}
	}
	const emulator = startGithubEmulator()
	const content: Record<string, string> = {}
	for (let i = 0; i < files; i++) content[`docs/page-${i}.md`] = `# Page ${i}\n\n${sentence(i)}`
	emulator.createRepo('bench/pages', content)
	return {
		stop: () => emulator.stop(),
		faults: emulator.faults,
		env: { GITHUB_CLIENT_ID: emulator.clientId, GITHUB_CLIENT_SECRET: emulator.clientSecret },
		plugin: github({ apiUrl: emulator.url, webUrl: emulator.url }),
		start: async (t: TestService, id: string) => {
			await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ full_name: 'bench/pages' }] })
		},
	}
}

const bench = await setUp()

if (withFaults) bench.faults.random = random(28)
const t = await startTestService(driver, { env: bench.env, plugins: [bench.plugin], extractor: null })

async function searchLatencies(count: number): Promise<number[]> {
	const times: number[] = []
	for (let i = 0; i < count; i++) {
		const started = performance.now()
		await t.json('POST', '/v3/search', { q: `station ${i} reports`, containerTag: 'idle-probe' })
		times.push(performance.now() - started)
	}
	return times.sort((a, b) => a - b)
}
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

try {
	const idleBefore = await searchLatencies(50)
	const created = await t.json('POST', `/v3/connections/${provider}`, { containerTag: 'bench' })
	const { providerUrl, cookie } = await openAuthLink(t, created.body.authLink)
	const consent = await fetch(providerUrl, { redirect: 'manual' })
	const callback = new URL(consent.headers.get('location')!)
	const id = created.body.id as string
	const started = performance.now()
	await landCallback(t, callback, cookie)
	if (withFaults) {
		bench.faults.faults.rateLimitEvery = 100
		bench.faults.faults.failRate5xx = 0.01
	}
	await bench.start(t, id)
	const during: number[] = []
	let importedAt = 0
	let doneAt = 0
	while (!doneAt) {
		const probe = performance.now()
		await t.json('POST', '/v3/search', { q: 'station reports', containerTag: 'idle-probe' })
		during.push(performance.now() - probe)
		const items = await t.service.plugins.storage.connections.countItems(id)
		if (!importedAt && items >= files) importedAt = performance.now()
		if (importedAt) {
			const processing = await t.service.plugins.storage.documents.processing({
				orgId: (await t.json('GET', '/v3/usage')).body.orgId,
			})
			if (processing.length === 0) doneAt = performance.now()
		}
		await Bun.sleep(200)
	}
	during.sort((a, b) => a - b)
	const { counts } = bench.faults
	const imported = await t.service.plugins.storage.connections.countItems(id)
	const runs = (await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns as { status: string }[]
	const idleAfter = await searchLatencies(50)
	const seconds = (ms: number) => (ms / 1000).toFixed(1)
	console.log(
		`${provider}${provider === 'notion' ? ` at ${rps} requests/s` : ''}, ${driver}${withFaults ? ', faults' : ''}`,
	)
	console.log(
		`imported ${imported} of ${files}; ${counts.requests} provider requests, ${counts.rateLimited} rate limited, ${counts.failed5xx} 5xx; runs: ${runs.map((run) => run.status).join(', ')}`,
	)
	console.log(
		`| files | imported (s) | searchable (s) | files/s to searchable | search p50/p95 idle (ms) | search p50/p95 during sync (ms) |`,
	)
	console.log(`|---|---|---|---|---|---|`)
	console.log(
		`| ${files} | ${seconds(importedAt - started)} | ${seconds(doneAt - started)} | ${(files / ((doneAt - started) / 1000)).toFixed(1)} | ${pct(idleBefore, 50).toFixed(1)}/${pct(idleBefore, 95).toFixed(1)}, after ${pct(idleAfter, 50).toFixed(1)}/${pct(idleAfter, 95).toFixed(1)} | ${pct(during, 50).toFixed(1)}/${pct(during, 95).toFixed(1)} (${during.length} probes) |`,
	)
} finally {
	await t.stop()
	bench.stop()
	stopProvisionedPostgres()
}
