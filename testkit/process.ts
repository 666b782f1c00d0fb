import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { RUNTIME_HEADER_BYTES } from '../core/http/guards/request-size.ts'
import { SHARED_EMBEDDER_CACHE } from './service.ts'

const ROOT = join(import.meta.dir, '..')

export interface ServerProcess {
	proc: Subprocess<'ignore', 'pipe', 'pipe'>
	url: string
	/** The first key printed on the first start of an empty embedded store, if any. */
	firstKey: string | null
	stdout: string[]
	stderr: string[]
	kill(signal?: NodeJS.Signals | number): Promise<void>
}

async function collect(stream: ReadableStream<Uint8Array>, lines: string[], onLine: () => void) {
	const decoder = new TextDecoder()
	let buffer = ''
	for await (const chunk of stream) {
		buffer += decoder.decode(chunk, { stream: true })
		const parts = buffer.split('\n')
		buffer = parts.pop() ?? ''
		lines.push(...parts)
		onLine()
	}
	if (buffer) lines.push(buffer)
	onLine()
}

/** Starts `bun server/main.ts` as a real process on a free port and waits until it is listening. */
export async function spawnServer(env: Record<string, string>, args: string[] = []): Promise<ServerProcess> {
	// As `bun run start` runs it.
	const runtimeFlags = [`--max-http-header-size=${RUNTIME_HEADER_BYTES}`]
	const proc = Bun.spawn([process.execPath, ...runtimeFlags, join(ROOT, 'server/main.ts'), ...args], {
		cwd: ROOT,
		env: {
			PATH: process.env.PATH ?? '',
			PORT: '0',
			HOST: '127.0.0.1',
			MEMORY_CACHE_DIR: SHARED_EMBEDDER_CACHE,
			...env,
		},
		stdout: 'pipe',
		stderr: 'pipe',
		stdin: 'ignore',
	})
	const stdout: string[] = []
	const stderr: string[] = []
	let wake = () => {}
	void collect(proc.stdout, stdout, () => wake())
	void collect(proc.stderr, stderr, () => wake())
	const started = Date.now()
	for (;;) {
		const line = stderr.find((l) => l.includes('"memory service started"'))
		if (line) {
			await Bun.sleep(50)
			const url = JSON.parse(line).url as string | null
			const keyIndex = stdout.findIndex((l) => l.startsWith('Created the first API key'))
			return {
				proc,
				url: url ?? '',
				firstKey: keyIndex >= 0 ? (stdout[keyIndex + 1] ?? null) : null,
				stdout,
				stderr,
				async kill(signal = 'SIGTERM') {
					proc.kill(signal)
					await proc.exited
				},
			}
		}
		if (proc.exitCode !== null || Date.now() - started > 240_000) {
			proc.kill('SIGKILL')
			throw new Error(`server did not start:\n${stdout.join('\n')}\n${stderr.join('\n')}`)
		}
		await new Promise<void>((resolve) => {
			wake = resolve
			setTimeout(resolve, 100)
		})
	}
}

/** Runs a command to completion and returns its exit code and output. */
export async function run(cmd: string[], env: Record<string, string>) {
	const proc = Bun.spawn(cmd, {
		cwd: ROOT,
		env: { PATH: process.env.PATH ?? '', ...env },
		stdout: 'pipe',
		stderr: 'pipe',
	})
	const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
	return { code: await proc.exited, stdout, stderr }
}
