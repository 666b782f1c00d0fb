/**
 * Connector throughput: N Markdown files on a local emulator (a GitHub repository, or a OneDrive through the Graph
 * emulator, downloaded as files through the file ingestion), synced by a real in-process service (embedded store,
 * local embedder, no memory extraction), timed from the start of the sync (GitHub: `configure`; OneDrive: the
 * authorization, whose first sync takes the whole drive) until every file is imported and until every imported
 * document is searchable (done). Meanwhile, and again once idle, the latency of `POST /v3/search` shows what a running
 * sync costs the API.
 *
 *   bun bench/connector-sync.ts [--files 1000] [--provider github|onedrive]
 */
import { github } from '../connectors/github/index.ts'
import { onedrive } from '../connectors/onedrive/index.ts'
import { startGithubEmulator } from '../tests/emulators/github.ts'
import { startGraphEmulator } from '../tests/emulators/graph.ts'
import { startTestService } from '../tests/helpers/service.ts'

const option = (name: string) =>
	process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined
const files = Number(option('--files') || 1000) || 1000
const provider = option('--provider') ?? 'github'
if (provider !== 'github' && provider !== 'onedrive') throw new Error('--provider is github or onedrive')
const page = (i: number) =>
	`# Page ${i}\n\nThe service at station ${i} runs every ${(i % 12) + 1} hours and reports to team ${i % 37}.`

const githubEmulator = provider === 'github' ? startGithubEmulator() : null
const graphEmulator = provider === 'onedrive' ? startGraphEmulator({ pageSize: 200 }) : null
if (githubEmulator) {
	const content: Record<string, string> = {}
	for (let i = 0; i < files; i++) content[`docs/page-${i}.md`] = page(i)
	githubEmulator.createRepo('bench/pages', content)
}
if (graphEmulator) {
	const drive = graphEmulator.drive('bench')
	const folder = drive.addFolder('Pages')
	for (let i = 0; i < files; i++) drive.addFile(`page-${i}.md`, page(i), folder, 'text/markdown')
	graphEmulator.consentAs('bench')
}
const t = await startTestService('pglite', {
	env: githubEmulator
		? { GITHUB_CLIENT_ID: githubEmulator.clientId, GITHUB_CLIENT_SECRET: githubEmulator.clientSecret }
		: { MICROSOFT_CLIENT_ID: graphEmulator!.clientId, MICROSOFT_CLIENT_SECRET: graphEmulator!.clientSecret },
	plugins: githubEmulator
		? [github({ apiUrl: githubEmulator.url, webUrl: githubEmulator.url })]
		: [onedrive({ graphUrl: graphEmulator!.url, loginUrl: graphEmulator!.url })],
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
	const created = await t.json('POST', `/v3/connections/${provider}`, { containerTag: 'bench' })
	const consent = await fetch(created.body.authLink, { redirect: 'manual' })
	const callback = new URL(consent.headers.get('location')!)
	let started = performance.now()
	await t.request('GET', `${callback.pathname}${callback.search}`, { key: null })
	const id = created.body.id as string
	if (provider === 'github') {
		started = performance.now()
		await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ full_name: 'bench/pages' }] })
	}
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
	console.log(`${provider}:`)
	console.log(
		`| files | imported (s) | searchable (s) | files/s to searchable | search p50/p95 idle (ms) | search p50/p95 during sync (ms) |`,
	)
	console.log(`|---|---|---|---|---|---|`)
	console.log(
		`| ${files} | ${seconds(importedAt - started)} | ${seconds(doneAt - started)} | ${(files / ((doneAt - started) / 1000)).toFixed(1)} | ${pct(idleBefore, 50).toFixed(1)}/${pct(idleBefore, 95).toFixed(1)}, after ${pct(idleAfter, 50).toFixed(1)}/${pct(idleAfter, 95).toFixed(1)} | ${pct(during, 50).toFixed(1)}/${pct(during, 95).toFixed(1)} (${during.length} probes) |`,
	)
} finally {
	await t.stop()
	githubEmulator?.stop()
	graphEmulator?.stop()
}
