/**
 * GitHub connector throughput: a repository of N Markdown files on the local GitHub emulator, synced by a real
 * in-process service (embedded store or PostgreSQL, local embedder, no memory extraction), timed from `configure`
 * until every file is imported and until every imported document is searchable (done). Meanwhile, and again once
 * idle, the latency of `POST /v3/search` shows what a running sync costs the API.
 *
 *   bun bench/connector-sync.ts [--files 1000] [--driver embedded|postgres]
 *
 * PostgreSQL: BENCH_DATABASE_URL (an admin URL; a database is created and dropped), else a throwaway server is started.
 */
import { github } from '../connectors/github/index.ts'
import { startGithubEmulator } from '../tests/emulators/github.ts'
import { stopProvisionedPostgres } from '../tests/helpers/postgres.ts'
import { startTestService } from '../tests/helpers/service.ts'

const argument = (name: string) =>
	process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined
const files = Number(argument('--files') || 1000) || 1000
const driver = argument('--driver') === 'postgres' ? 'postgres' : 'pglite'
if (driver === 'postgres' && process.env.BENCH_DATABASE_URL)
	process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const emulator = startGithubEmulator()
const content: Record<string, string> = {}
for (let i = 0; i < files; i++) {
	content[`docs/page-${i}.md`] =
		`# Page ${i}\n\nThe service at station ${i} runs every ${(i % 12) + 1} hours and reports to team ${i % 37}.`
}
emulator.createRepo('bench/pages', content)
const t = await startTestService(driver, {
	env: { GITHUB_CLIENT_ID: emulator.clientId, GITHUB_CLIENT_SECRET: emulator.clientSecret },
	plugins: [github({ apiUrl: emulator.url, webUrl: emulator.url })],
	extractor: null,
})

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
	const created = await t.json('POST', '/v3/connections/github', { containerTag: 'bench' })
	const consent = await fetch(created.body.authLink, { redirect: 'manual' })
	const callback = new URL(consent.headers.get('location')!)
	await t.request('GET', `${callback.pathname}${callback.search}`, { key: null })
	const id = created.body.id as string
	const started = performance.now()
	await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ full_name: 'bench/pages' }] })
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
	const idleAfter = await searchLatencies(50)
	const seconds = (ms: number) => (ms / 1000).toFixed(1)
	console.log(`${driver}, ${files} files`)
	console.log(
		`| files | imported (s) | searchable (s) | files/s to searchable | search p50/p95 idle (ms) | search p50/p95 during sync (ms) |`,
	)
	console.log(`|---|---|---|---|---|---|`)
	console.log(
		`| ${files} | ${seconds(importedAt - started)} | ${seconds(doneAt - started)} | ${(files / ((doneAt - started) / 1000)).toFixed(1)} | ${pct(idleBefore, 50).toFixed(1)}/${pct(idleBefore, 95).toFixed(1)}, after ${pct(idleAfter, 50).toFixed(1)}/${pct(idleAfter, 95).toFixed(1)} | ${pct(during, 50).toFixed(1)}/${pct(during, 95).toFixed(1)} (${during.length} probes) |`,
	)
} finally {
	await t.stop()
	emulator.stop()
	stopProvisionedPostgres()
}
