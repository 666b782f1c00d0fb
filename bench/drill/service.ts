import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { RUNTIME_HEADER_BYTES } from '../../core/http/guards/request-size.ts'

const ROOT = join(import.meta.dir, '..', '..')

export interface DrillProcess {
	url: string
	proc: Subprocess
	/** Peak resident memory (VmHWM) so far, in bytes. */
	peakBytes(): number
	/** kill -9, waiting until the process is reaped. */
	crash(): Promise<void>
	stop(): Promise<void>
}

/** A free loopback port. */
export function freePort(): number {
	const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
	const port = server.port!
	server.stop(true)
	return port
}

/** `bun run start` as its own process on loopback; resolves once /health answers 200 (or at once for a worker). */
export async function startDrillService(env: Record<string, string>, args: string[] = []): Promise<DrillProcess> {
	const port = freePort()
	const proc = Bun.spawn(
		[process.execPath, `--max-http-header-size=${RUNTIME_HEADER_BYTES}`, join(ROOT, 'server/main.ts'), ...args],
		{
			cwd: ROOT,
			env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', PORT: String(port), HOST: '127.0.0.1', ...env },
			stdin: 'ignore',
			stdout: 'ignore',
			stderr: 'inherit',
		},
	)
	const url = `http://127.0.0.1:${port}`
	const deadline = Date.now() + 180_000
	if (!args.includes('--role=worker')) {
		for (;;) {
			if (proc.exitCode !== null) throw new Error(`service exited with ${proc.exitCode}`)
			if (Date.now() > deadline) throw new Error('service did not answer /health in 180 s')
			const ok = await fetch(`${url}/health`)
				.then((r) => r.status === 200)
				.catch(() => false)
			if (ok) break
			await Bun.sleep(250)
		}
	}
	const crash = async () => {
		proc.kill('SIGKILL')
		await proc.exited
	}
	return {
		url,
		proc,
		crash,
		peakBytes() {
			try {
				const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8')
				return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) * 1024
			} catch {
				return Number.NaN
			}
		},
		async stop() {
			proc.kill('SIGTERM')
			const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(20_000).then(() => false)])
			if (!exited) await crash()
		},
	}
}

/** Creates an organization's key with the keys command (the store must not be open elsewhere when embedded). */
export async function createKey(env: Record<string, string>, org: string): Promise<string> {
	const proc = Bun.spawn(
		[process.execPath, join(ROOT, 'server/cli/keys.ts'), 'create', '--name', `drill ${org}`, '--org', org],
		{
			cwd: ROOT,
			env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', ...env },
			stdout: 'pipe',
			stderr: 'pipe',
		},
	)
	const out = await new Response(proc.stdout).text()
	if ((await proc.exited) !== 0) throw new Error(`keys create failed: ${await new Response(proc.stderr).text()}`)
	return out.trim().split('\n').at(-1)!
}

/** Samples /health every 200 ms; `worst()` is the slowest answer seen (a failed probe counts as its time-out). */
export function healthWatch(url: () => string) {
	let worst = 0
	let since = 0
	let running = true
	void (async () => {
		while (running) {
			const started = performance.now()
			await fetch(`${url()}/health`, { signal: AbortSignal.timeout(10_000) }).catch(() => {})
			// A probe sent before the last reset (or while the drill itself was busy building inputs) does not count.
			if (started >= since) worst = Math.max(worst, performance.now() - started)
			await Bun.sleep(200)
		}
	})()
	return {
		worst: () => worst,
		reset: () => {
			worst = 0
			since = performance.now()
		},
		stop: () => {
			running = false
		},
	}
}

/** Polls a document until it is done or failed, or `timeoutMs` passes (then its last status). */
export async function settle(url: string, key: string, id: string, timeoutMs = 120_000): Promise<string> {
	const deadline = Date.now() + timeoutMs
	let status = 'unknown'
	while (Date.now() < deadline) {
		const response = await fetch(`${url}/v3/documents/${id}`, { headers: { authorization: `Bearer ${key}` } }).catch(
			() => null,
		)
		if (response?.status === 200) {
			status = ((await response.json()) as { status: string }).status
			if (status === 'done' || status === 'failed') return status
		}
		await Bun.sleep(250)
	}
	return `${status} after ${Math.round(timeoutMs / 1000)} s`
}
