/**
 * Resident memory of the embedded server at start: `server/main.ts` on a fresh, empty MEMORY_DATA_DIR (first start),
 * then again on the same directory (restart). Each start waits for `/health`, then `--wait` seconds, and reads VmRSS
 * and VmHWM (peak) of the server process from /proc. The word-vector cache is the tests' shared one, so the process
 * that builds it is not in the figures; `--cache` adds one first start on an empty cache directory and reports that
 * process's peak apart. `--root DIR` runs the server of another checkout (to compare before and after a change).
 *
 *   bun bench/start-memory.ts [--runs 3] [--wait 10] [--root ../main] [--cache]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SHARED_EMBEDDER_CACHE } from '../testkit/service.ts'
import { readUntil } from './lib/read-until.ts'

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
	const at = args.indexOf(`--${name}`)
	return at >= 0 ? args[at + 1]! : fallback
}
const root = option('root', join(import.meta.dir, '..'))
const runs = Number(option('runs', '3'))
const waitMs = Number(option('wait', '10')) * 1000

interface Start {
	healthMs: number
	rssMb: number
	peakMb: number
	/** Peak of the cache-building child process, when one ran. */
	cachePeakMb: number | null
}

async function start(dataDir: string, cacheDir: string): Promise<Start> {
	const started = performance.now()
	const proc = Bun.spawn([process.execPath, join(root, 'server/main.ts')], {
		cwd: root,
		env: {
			PATH: process.env.PATH ?? '',
			PORT: '0',
			HOST: '127.0.0.1',
			MEMORY_DATA_DIR: dataDir,
			MEMORY_CACHE_DIR: cacheDir,
			LOG_LEVEL: 'info',
		},
		stdout: 'ignore',
		stderr: 'pipe',
	})
	const children = watchChildren(proc.pid)
	try {
		const url = await readUntil(proc.stderr, /"memory service started".*?"url":"([^"]+)"/)
		while (!(await fetch(`${url}/health`).then((response) => response.ok))) await Bun.sleep(50)
		const healthMs = performance.now() - started
		await Bun.sleep(waitMs)
		const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8')
		return { healthMs, rssMb: kbField(status, 'VmRSS'), peakMb: kbField(status, 'VmHWM'), cachePeakMb: children.peak() }
	} finally {
		children.stop()
		proc.kill('SIGTERM')
		await proc.exited
	}
}

/** Samples the peak (VmHWM) of the process's children every 20 ms, as they may exit between samples. */
function watchChildren(pid: number) {
	let peak: number | null = null
	const timer = setInterval(() => {
		for (const child of childPids(pid)) {
			try {
				peak = Math.max(peak ?? 0, kbField(readFileSync(`/proc/${child}/status`, 'utf8'), 'VmHWM'))
			} catch {
				// exited meanwhile
			}
		}
	}, 20)
	return { peak: () => peak, stop: () => clearInterval(timer) }
}

function childPids(pid: number): string[] {
	try {
		return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
			readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean),
		)
	} catch {
		return []
	}
}

function kbField(status: string, field: string): number {
	return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024)
}

const row = (label: string, s: Start) =>
	console.log(
		`| ${label.padEnd(13)} | ${(s.healthMs / 1000).toFixed(1).padStart(8)} | ${String(s.rssMb).padStart(6)} | ${String(s.peakMb).padStart(7)} |` +
			(s.cachePeakMb === null ? '' : ` cache build peak ${s.cachePeakMb} MB`),
	)

console.log(`server of ${root}, /proc read ${waitMs / 1000} s after /health`)
console.log('| start         | health s | RSS MB | peak MB |')
console.log('| ------------- | -------: | -----: | ------: |')
if (args.includes('--cache')) {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-start-'))
	const cacheDir = mkdtempSync(join(tmpdir(), 'memory-start-cache-'))
	try {
		row('first + cache', await start(dataDir, cacheDir))
	} finally {
		rmSync(dataDir, { recursive: true, force: true })
		rmSync(cacheDir, { recursive: true, force: true })
	}
}
for (let run = 0; run < runs; run++) {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-start-'))
	try {
		row('first', await start(dataDir, SHARED_EMBEDDER_CACHE))
		row('restart', await start(dataDir, SHARED_EMBEDDER_CACHE))
	} finally {
		rmSync(dataDir, { recursive: true, force: true })
	}
}
