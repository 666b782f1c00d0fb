/**
 * Event-loop stall and peak memory of a real embedded server on hostile single inputs: a 1 MB word, a 3 MB PDF whose
 * stream inflates to 3 GiB, and a 50 MB text upload. Each input gets a fresh server; /health is polled every 50 ms
 * while the document is processed (longest answer = stall; the server's start-up work is waited out first and its
 * slowest answer reported apart), and the server's peak resident memory is read from
 * /proc (VmHWM). Each row also has the seconds each pipeline stage took, every /health answer over 250 ms with the
 * document status last seen, and the highest resident memory seen in each status. `--root DIR` runs the server of
 * another checkout (to compare before and after a change).
 *
 *   bun bench/hostile-inputs.ts [--root ../main] [--only word,pdf,upload] [--timeout 600] [--pdf-gib 3] [--upload-mb 50]
 *
 * MEMORY_* variables of the bench's own environment reach the server (e.g. MEMORY_DOCUMENT_MAX_MEMORY_MB).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pdfBomb } from '../testkit/sample-files.ts'
import { SHARED_EMBEDDER_CACHE } from '../testkit/service.ts'
import { readUntil } from './lib/read-until.ts'

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
	const at = args.indexOf(`--${name}`)
	return at >= 0 ? args[at + 1]! : fallback
}
const root = option('root', join(import.meta.dir, '..'))
const only = option('only', 'word,pdf,upload').split(',')
const timeoutMs = Number(option('timeout', '600')) * 1000
const pdfGib = Number(option('pdf-gib', '3'))
const uploadMb = Number(option('upload-mb', '50'))
const memorySettings = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('MEMORY_')))

async function startServer(dataDir: string) {
	const proc = Bun.spawn([process.execPath, join(root, 'server/main.ts')], {
		cwd: root,
		env: {
			...memorySettings,
			PATH: process.env.PATH ?? '',
			PORT: '0',
			HOST: '127.0.0.1',
			MEMORY_DATA_DIR: dataDir,
			// The word-vector cache the tests build once, so each fresh server loads it instead of building it.
			MEMORY_CACHE_DIR: process.env.MEMORY_CACHE_DIR ?? SHARED_EMBEDDER_CACHE,
			LOG_LEVEL: 'info',
		},
		stdout: 'pipe',
		stderr: 'pipe',
	})
	const out = await readUntil(proc.stdout, /Created the first API key[^\n]*\n(\S+)/)
	const err = await readUntil(proc.stderr, /"memory service started".*?"url":"([^"]+)"/)
	return { proc, key: out, url: err }
}

function peakRssMb(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8')
	return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

function rssMb(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8')
	return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

async function measure(name: string, send: (url: string, headers: Record<string, string>) => Promise<string>) {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-hostile-'))
	const server = await startServer(dataDir)
	const headers = { authorization: `Bearer ${server.key}` }
	const startupStallMs = await settle(server.url)
	const before = peakRssMb(server.proc.pid)
	const started = performance.now()
	let stall = 0
	let outcome = 'timeout'
	let stages: Record<string, number> = {}
	const slow: string[] = []
	const rssByStage: Record<string, number> = {}
	let status = 'queued'
	let processing = true
	// /health is polled on its own: a status request waits for the database, and a stall that starts while one is
	// in flight would otherwise go unmeasured.
	const probing = (async () => {
		while (processing) {
			const asked = performance.now()
			await fetch(`${server.url}/health`)
			const answeredMs = performance.now() - asked
			stall = Math.max(stall, answeredMs)
			if (answeredMs > 250) slow.push(`${Math.round(answeredMs)} ms (${status})`)
			await Bun.sleep(50)
		}
	})()
	try {
		const id = await send(server.url, headers)
		while (performance.now() - started < timeoutMs) {
			const document = (await (await fetch(`${server.url}/v3/documents/${id}`, { headers })).json()) as {
				status: string
				error: string | null
				stages: { stage: string; startedAt: string; endedAt: string | null }[]
			}
			status = document.status
			rssByStage[status] = Math.max(rssByStage[status] ?? 0, rssMb(server.proc.pid))
			if (status === 'done' || status === 'failed') {
				outcome = status === 'done' ? 'done' : `failed: ${document.error}`
				stages = stageSeconds(document.stages)
				break
			}
			// Once extracted, the answer carries the whole text (50 MB for the largest upload): asked often, it would
			// be the load being measured.
			await Bun.sleep(1_000)
		}
	} catch (error) {
		outcome = `error: ${String(error)}`
	}
	processing = false
	await probing.catch(() => {})
	const row = {
		input: name,
		outcome: outcome.slice(0, 120),
		seconds: Math.round((performance.now() - started) / 100) / 10,
		healthStallMs: Math.round(stall),
		startupStallMs,
		peakRssMb: peakRssMb(server.proc.pid),
		rssAtStartMb: before,
		stageSeconds: stages,
		slowHealth: slow,
		peakRssMbByStatus: rssByStage,
	}
	server.proc.kill(9)
	await server.proc.exited
	rmSync(dataDir, { recursive: true, force: true })
	console.log(JSON.stringify(row))
}

/**
 * Waits until the fresh server's start-up work is over (no /health answer over 100 ms for 2 s, at most 60 s), so a
 * row measures its input; returns the slowest answer seen meanwhile.
 */
async function settle(url: string): Promise<number> {
	const started = performance.now()
	let calmSince = started
	let slowest = 0
	while (performance.now() - calmSince < 2_000 && performance.now() - started < 60_000) {
		const asked = performance.now()
		await fetch(`${url}/health`)
		const answeredMs = performance.now() - asked
		slowest = Math.max(slowest, answeredMs)
		if (answeredMs > 100) calmSince = performance.now()
		await Bun.sleep(50)
	}
	return Math.round(slowest)
}

/** Seconds each pipeline stage took (the last attempt's record of it). */
function stageSeconds(stages: { stage: string; startedAt: string; endedAt: string | null }[]): Record<string, number> {
	const seconds: Record<string, number> = {}
	for (const { stage, startedAt, endedAt } of stages) {
		if (endedAt) seconds[stage] = Math.round((Date.parse(endedAt) - Date.parse(startedAt)) / 100) / 10
	}
	return seconds
}

const post = (content: string) => async (url: string, headers: Record<string, string>) => {
	const response = await fetch(`${url}/v3/documents`, {
		method: 'POST',
		headers: { ...headers, 'content-type': 'application/json' },
		body: JSON.stringify({ content, containerTag: 'hostile', dreaming: 'instant' }),
	})
	return ((await response.json()) as { id: string }).id
}
const uploadFile = (bytes: Uint8Array, name: string) => async (url: string, headers: Record<string, string>) => {
	const form = new FormData()
	form.append('file', new File([bytes as Uint8Array<ArrayBuffer>], name))
	form.append('containerTag', 'hostile')
	const response = await fetch(`${url}/v3/documents/file`, { method: 'POST', headers, body: form })
	return ((await response.json()) as { id: string }).id
}

console.log(JSON.stringify({ root, date: new Date().toISOString() }))
if (only.includes('word')) await measure('1 MB word', post('A'.repeat(1_048_576)))
if (only.includes('pdf'))
	await measure(`PDF bomb (${pdfGib} GiB inflated)`, uploadFile(await pdfBomb(pdfGib * 1024 ** 3), 'bomb.pdf'))
if (only.includes('upload')) {
	const words = ['apple', 'river', 'stone', 'green', 'market', 'window', 'silver', 'garden']
	let text = ''
	const line = `${Array.from({ length: 12 }, (_, i) => words[i % words.length]).join(' ')}.\n`
	const size = uploadMb * 1024 * 1024 - 1024
	text = line.repeat(Math.ceil(size / line.length)).slice(0, size)
	await measure(`${uploadMb} MB text upload`, uploadFile(new TextEncoder().encode(text), 'big.txt'))
}
