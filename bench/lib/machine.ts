import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'

const ROOT = join(import.meta.dir, '..', '..')

async function packageVersion(name: string): Promise<string> {
	try {
		const manifest = (await Bun.file(join(ROOT, 'node_modules', name, 'package.json')).json()) as { version: string }
		return manifest.version
	} catch {
		return 'unknown'
	}
}

/** The server's version and the settings that change write speed the most (a throwaway CI server turns fsync off). */
export async function postgresDescription(databaseUrl: string): Promise<string> {
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
	try {
		const [row] = await sql<
			{ version: string; vector: string | null; fsync: string; commit: string; buffers: string }[]
		>`
			SELECT current_setting('server_version') AS version,
				(SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS vector,
				current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS commit,
				current_setting('shared_buffers') AS buffers`
		return `PostgreSQL ${row!.version.split(' ')[0]} + pgvector ${row!.vector ?? '?'} (fsync ${row!.fsync}, synchronous_commit ${row!.commit}, shared_buffers ${row!.buffers})`
	} catch (error) {
		return `PostgreSQL unreachable (${(error as Error).message})`
	} finally {
		await sql.end({ timeout: 1 })
	}
}

/** One line describing the machine and the software versions, printed above every table. */
export async function describeMachine(databaseUrl?: string | null): Promise<string> {
	const cpu = cpus()
	const parts = [
		`${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'})`,
		`${(totalmem() / 1024 ** 3).toFixed(1)} GiB memory`,
		`${process.platform}/${process.arch}`,
		`Bun ${Bun.version}`,
		`PGlite ${await packageVersion('@electric-sql/pglite')}`,
	]
	if (databaseUrl) parts.push(await postgresDescription(databaseUrl))
	return parts.join(', ')
}

/** Iterations of the JavaScript probe loop, and rows PostgreSQL's probe counts. */
const LOOP_ITERATIONS = 200_000_000
const SERIES_ROWS = 2_000_000
const PROBE_ROUNDS = 3

/** The best of `PROBE_ROUNDS` timings of `run`, in ms. */
async function bestOf(run: () => Promise<unknown> | unknown): Promise<number> {
	let best = Number.POSITIVE_INFINITY
	for (let round = 0; round < PROBE_ROUNDS; round++) {
		const started = performance.now()
		await run()
		best = Math.min(best, performance.now() - started)
	}
	return best
}

function probeLoop(): number {
	let sum = 0
	for (let i = 0; i < LOOP_ITERATIONS; i++) sum += i & 7
	return sum
}

/**
 * How fast this machine is now, on two fixed workloads (best of three, ms; smaller is faster): a JavaScript loop on
 * one core, and PostgreSQL's executor counting a generated series. Figures of different runs compare only when these
 * agree (bench/README.md, Machine).
 */
export async function machineSpeed(
	databaseUrl?: string | null,
): Promise<{ loopMs: number; postgresMs: number | null }> {
	let checksum = 0
	const loopMs = await bestOf(() => {
		checksum += probeLoop()
	})
	if (checksum === 0) throw new Error('the probe loop was optimized away')
	if (!databaseUrl) return { loopMs, postgresMs: null }
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
	try {
		// Compiling the expression would time the JIT, not the executor.
		await sql`SET jit = off`
		const postgresMs = await bestOf(() => sql`SELECT count(*) FROM generate_series(1, ${SERIES_ROWS}::int)`)
		return { loopMs, postgresMs }
	} catch {
		return { loopMs, postgresMs: null }
	} finally {
		await sql.end({ timeout: 1 })
	}
}

export async function printMachine(databaseUrl?: string | null): Promise<void> {
	console.log(`Machine: ${await describeMachine(databaseUrl)}`)
	const speed = await machineSpeed(databaseUrl)
	const postgresPart =
		speed.postgresMs === null
			? ''
			: `, PostgreSQL counting ${SERIES_ROWS.toLocaleString('en')} rows ${speed.postgresMs.toFixed(0)} ms`
	console.log(
		`Machine speed (best of ${PROBE_ROUNDS}): a ${LOOP_ITERATIONS.toLocaleString('en')}-step JavaScript loop ${speed.loopMs.toFixed(0)} ms${postgresPart}`,
	)
	console.log(`Date: ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`)
}
