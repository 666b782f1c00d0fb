import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import type { BenchStore } from './store.ts'

const ROOT = join(import.meta.dir, '..', '..')

export interface ServerProcess {
	url: string
	pid: number
	/** Milliseconds from spawn until /health answered 200. */
	startupMs: number
	/** Resident set size now, and its peak (VmHWM), in bytes. */
	memory(): { rss: number; peak: number }
	/** What the service wrote to stderr (its warnings and errors) so far. */
	log(): string
	stop(): Promise<void>
}

/** Extra flags for the server's `bun` (e.g. BENCH_SERVER_BUN_FLAGS=--smol), to compare runtime settings. */
const SERVER_BUN_FLAGS = (process.env.BENCH_SERVER_BUN_FLAGS ?? '').split(' ').filter(Boolean)

/** The service's own settings (MEMORY_*) set where the bench runs reach the server, to compare settings. */
const SERVICE_SETTINGS = Object.fromEntries(
	Object.entries(process.env).filter(
		(entry): entry is [string, string] => entry[0].startsWith('MEMORY_') && !!entry[1],
	),
)

/** A free loopback port: bind port 0, read it, let it go. */
function freePort(): number {
	const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
	const port = server.port!
	server.stop(true)
	return port
}

function readMemory(pid: number): { rss: number; peak: number } {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8')
		const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
		return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 }
	} catch {
		return { rss: Number.NaN, peak: Number.NaN }
	}
}

type ServiceProcess = Subprocess<'ignore', 'ignore', 'pipe'>

/** The service's entry point in a checkout (`core/main.ts` in versions before `server/`). */
export function serverEntry(root: string): string {
	const entry = join(root, 'server/main.ts')
	return existsSync(entry) ? entry : join(root, 'core/main.ts')
}

/** `bun server/main.ts` of the checkout at `root` on the store, its stderr collected. */
function spawnService(store: BenchStore, env: Record<string, string>, args: string[], root = ROOT) {
	const stderr: string[] = []
	const proc: ServiceProcess = Bun.spawn([process.execPath, ...SERVER_BUN_FLAGS, serverEntry(root), ...args], {
		cwd: store.dataDir,
		env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...SERVICE_SETTINGS, ...store.env, ...env },
		stdin: 'ignore',
		stdout: 'ignore',
		stderr: 'pipe',
	})
	void (async () => {
		const decoder = new TextDecoder()
		for await (const chunk of proc.stderr) stderr.push(decoder.decode(chunk))
	})()
	return { proc, stderr }
}

async function stopService(proc: ServiceProcess): Promise<void> {
	proc.kill('SIGTERM')
	const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(20_000).then(() => false)])
	if (!exited) {
		proc.kill('SIGKILL')
		await proc.exited
	}
}

/**
 * Starts `bun server/main.ts` (of the checkout at `root`, by default this one) on the store as its own process, listening on 127.0.0.1 only, and waits until /health
 * answers 200 (storage, job queue and workers up). Its working directory is the store's folder, so a developer's
 * memory.config.ts never applies to a bench.
 */
export async function startServer(
	store: BenchStore,
	env: Record<string, string> = {},
	timeoutMs = 120_000,
	args: string[] = [],
	root = ROOT,
): Promise<ServerProcess> {
	const port = freePort()
	const url = `http://127.0.0.1:${port}`
	const started = performance.now()
	const { proc, stderr } = spawnService(store, { HOST: '127.0.0.1', PORT: String(port), ...env }, args, root)
	for (;;) {
		try {
			const response = await fetch(`${url}/health`)
			if (response.status === 200) break
		} catch {}
		if (proc.exitCode !== null || performance.now() - started > timeoutMs) {
			proc.kill('SIGKILL')
			throw new Error(`the server did not start (exit ${proc.exitCode}):\n${stderr.join('').slice(-3000)}`)
		}
		await Bun.sleep(5)
	}
	const startupMs = performance.now() - started
	return {
		url,
		pid: proc.pid,
		startupMs,
		memory: () => readMemory(proc.pid),
		log: () => stderr.join(''),
		stop: () => stopService(proc),
	}
}

/**
 * Starts a `--role worker` process on a PostgreSQL store (no HTTP: the caller knows it is up when a document it
 * posted through an api process is processed).
 */
export function startWorker(store: BenchStore, env: Record<string, string> = {}): { stop(): Promise<void> } {
	const { proc } = spawnService(store, env, ['--role', 'worker'])
	return { stop: () => stopService(proc) }
}
