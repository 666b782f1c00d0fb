/**
 * Connector throughput: N documents on a local provider emulator (a GitHub repository of Markdown files, a Google
 * Drive of Docs, or a mailbox of Gmail threads), synced by a real in-process service (embedded store, local embedder,
 * no memory extraction), timed from the start of the sync (GitHub: `configure`; Drive and Gmail: the OAuth callback,
 * whose first sync lists everything) until every document is imported and until every imported document is
 * searchable (done). Meanwhile, and again once idle, the latency of `POST /v3/search` shows what a running sync
 * costs the API.
 *
 *   bun bench/connector-sync.ts [--files 1000] [--provider github|google-drive|gmail]
 */
import { github } from '../connectors/github/index.ts'
import { gmail } from '../connectors/gmail/index.ts'
import { googleDrive } from '../connectors/google-drive/index.ts'
import { startGithubEmulator } from '../tests/emulators/github.ts'
import { startGoogleEmulator } from '../tests/emulators/google.ts'
import { addDriveRoutes } from '../tests/emulators/google-drive.ts'
import { addGmailRoutes } from '../tests/emulators/google-gmail.ts'
import { startTestService, type TestService } from '../tests/helpers/service.ts'

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined)
const files = Number(arg('--files') || 1000) || 1000
const provider = arg('--provider') ?? 'github'
const body = (i: number) =>
	`# Page ${i}\n\nThe service at station ${i} runs every ${(i % 12) + 1} hours and reports to team ${i % 37}.`

interface Setup {
	env: Record<string, string>
	plugin: ReturnType<typeof github> | ReturnType<typeof googleDrive> | ReturnType<typeof gmail>
	/** Creates the connection; `start` begins the timed sync. */
	connect(t: TestService): Promise<{ id: string; start: () => Promise<void> }>
	stop(): void
}

async function authorize(t: TestService, path: string) {
	const created = await t.json('POST', path, { containerTag: 'bench' })
	const consent = await fetch(created.body.authLink, { redirect: 'manual' })
	const callback = new URL(consent.headers.get('location')!)
	return {
		id: created.body.id as string,
		land: () => t.request('GET', `${callback.pathname}${callback.search}`, { key: null }),
	}
}

function githubSetup(): Setup {
	const emulator = startGithubEmulator()
	const content: Record<string, string> = {}
	for (let i = 0; i < files; i++) content[`docs/page-${i}.md`] = body(i)
	emulator.createRepo('bench/pages', content)
	return {
		env: { GITHUB_CLIENT_ID: emulator.clientId, GITHUB_CLIENT_SECRET: emulator.clientSecret },
		plugin: github({ apiUrl: emulator.url, webUrl: emulator.url }),
		async connect(t) {
			const { id, land } = await authorize(t, '/v3/connections/github')
			await land()
			return {
				id,
				start: async () => {
					await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ full_name: 'bench/pages' }] })
				},
			}
		},
		stop: () => emulator.stop(),
	}
}

function driveSetup(): Setup {
	const google = startGoogleEmulator()
	const drive = addDriveRoutes(google)
	for (let i = 0; i < files; i++) drive.doc(`Page ${i}`, body(i))
	return {
		env: { GOOGLE_CLIENT_ID: google.clientId, GOOGLE_CLIENT_SECRET: google.clientSecret },
		plugin: googleDrive({ accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url }),
		async connect(t) {
			const { id, land } = await authorize(t, '/v3/connections/google-drive')
			return {
				id,
				start: async () => {
					await land()
				},
			}
		},
		stop: () => google.stop(),
	}
}

/** A mailbox of N threads of two messages each (a question and a reply quoting it). */
async function gmailSetup(): Promise<Setup> {
	const google = startGoogleEmulator()
	const mail = await addGmailRoutes(google)
	for (let i = 0; i < files; i++) {
		const { threadId } = mail.deliver({ subject: `Station ${i}`, text: `How often does station ${i} run?` })
		mail.deliver(
			{ subject: `Re: Station ${i}`, text: `${body(i)}\n\nOn Monday, Anna wrote:\n> How often does station ${i} run?` },
			{ threadId },
		)
	}
	return {
		env: { GOOGLE_CLIENT_ID: google.clientId, GOOGLE_CLIENT_SECRET: google.clientSecret },
		plugin: gmail({ accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url }),
		async connect(t) {
			const { id, land } = await authorize(t, '/v3/connections/gmail')
			return { id, start: async () => void (await land()) }
		},
		stop: () => google.stop(),
	}
}

const setups: Record<string, () => Setup | Promise<Setup>> = {
	github: githubSetup,
	'google-drive': driveSetup,
	gmail: gmailSetup,
}
if (!setups[provider]) throw new Error(`--provider is one of ${Object.keys(setups).join(', ')}`)
const setup = await setups[provider]!()
const t = await startTestService('pglite', { env: setup.env, plugins: [setup.plugin], extractor: null })

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
	const { id, start } = await setup.connect(t)
	const started = performance.now()
	await start()
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
	console.log(
		`| ${provider} files | imported (s) | searchable (s) | files/s to searchable | search p50/p95 idle (ms) | search p50/p95 during sync (ms) |`,
	)
	console.log(`|---|---|---|---|---|---|`)
	console.log(
		`| ${files} | ${seconds(importedAt - started)} | ${seconds(doneAt - started)} | ${(files / ((doneAt - started) / 1000)).toFixed(1)} | ${pct(idleBefore, 50).toFixed(1)}/${pct(idleBefore, 95).toFixed(1)}, after ${pct(idleAfter, 50).toFixed(1)}/${pct(idleAfter, 95).toFixed(1)} | ${pct(during, 50).toFixed(1)}/${pct(during, 95).toFixed(1)} (${during.length} probes) |`,
	)
} finally {
	await t.stop()
	setup.stop()
}
