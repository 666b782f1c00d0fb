/**
 * `bun run bench`: every bench script in sequence, each in its own process, on the embedded store and on PostgreSQL.
 * PostgreSQL is BENCH_DATABASE_URL when set; otherwise a throwaway local server is provisioned with
 * `.ci/postgres.sh start` (and stopped afterwards); without either, the PostgreSQL columns are skipped.
 *
 *   bun run bench [--quick] [--only search,ingest] [--out results.md]
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeMachine } from './lib/machine.ts'
import { flagValue } from './lib/store.ts'

const ROOT = join(import.meta.dir, '..')
const ORDER = ['ingest', 'search', 'profile', 'memory', 'locomo']

/** Known scripts in a fixed order, then any other top-level bench script (e.g. one another feature adds). */
function scripts(): string[] {
	const found = readdirSync(import.meta.dir)
		.filter((file) => file.endsWith('.ts') && file !== 'run.ts' && !file.endsWith('.d.ts'))
		.map((file) => file.replace(/\.ts$/, ''))
	return [...ORDER.filter((name) => found.includes(name)), ...found.filter((name) => !ORDER.includes(name)).sort()]
}

function provisionPostgres(): { url: string; stop: () => void } | null {
	const script = join(ROOT, '.ci', 'postgres.sh')
	const env = { ...process.env, PGCI_DIR: mkdtempSync(join(tmpdir(), 'memory-bench-pg-')) }
	console.error('[bench] no BENCH_DATABASE_URL: provisioning a local PostgreSQL with .ci/postgres.sh start')
	const started = Bun.spawnSync(['bash', script, 'start'], { cwd: ROOT, env, stderr: 'pipe' })
	const line = started.stdout.toString().trim()
	if (started.exitCode !== 0 || !line.startsWith('export TEST_DATABASE_URL=')) {
		console.error(`[bench] no PostgreSQL (${started.stderr.toString().trim().split('\n').slice(-2).join(' ')})`)
		return null
	}
	return {
		url: line.slice('export TEST_DATABASE_URL='.length),
		stop: () => void Bun.spawnSync(['bash', script, 'stop'], { cwd: ROOT, env }),
	}
}

async function main() {
	const argv = process.argv.slice(2)
	const only = flagValue(argv, 'only')?.split(',')
	const out = flagValue(argv, 'out')
	const passOn = argv.filter((arg) => arg === '--quick')
	const provisioned = process.env.BENCH_DATABASE_URL ? null : provisionPostgres()
	const databaseUrl = process.env.BENCH_DATABASE_URL || provisioned?.url || ''
	const output: string[] = []
	const print = (text: string) => {
		console.log(text)
		output.push(text)
	}
	try {
		print(`# Benchmarks, ${new Date().toISOString().slice(0, 10)}\n`)
		print(`Command: \`bun run bench${argv.length ? ` ${argv.join(' ')}` : ''}\``)
		print(`Machine: ${await describeMachine(databaseUrl || null)}`)
		for (const name of scripts().filter((script) => !only || only.includes(script))) {
			const started = performance.now()
			const proc = Bun.spawn([process.execPath, join(import.meta.dir, `${name}.ts`), ...passOn], {
				cwd: ROOT,
				env: { ...process.env, ...(databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {}) },
				stdout: 'pipe',
				stderr: 'inherit',
			})
			const text = await new Response(proc.stdout).text()
			const code = await proc.exited
			print(text.trimEnd())
			print(
				`\n_${name}: ${((performance.now() - started) / 1000).toFixed(0)} s${code === 0 ? '' : `, exited with ${code}`}_`,
			)
		}
	} finally {
		provisioned?.stop()
		if (out) writeFileSync(out, `${output.join('\n')}\n`)
	}
}

await main()
