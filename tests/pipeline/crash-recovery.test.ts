import { afterAll, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { createTestDatabase } from '../../testkit/postgres.ts'
import { type ServerProcess, spawnServer } from '../../testkit/process.ts'

const DOCUMENTS = 16
const paragraph = (i: number, p: number) =>
	`Report ${i}, part ${p}. The quarterly figures for region ${i} show steady growth in bicycles, kettles and lamps. `.repeat(
		8,
	)

/** How many document jobs were interrupted mid-run and retried after the restart. */
async function interruptedJobs(server: ServerProcess, env: Record<string, string>): Promise<number> {
	if (!env.DATABASE_URL) {
		const line = server.stderr.find((l) => l.includes('retrying jobs interrupted by a previous stop'))
		return line ? Number(JSON.parse(line).count) : 0
	}
	const sql = postgres(env.DATABASE_URL, { max: 1, onnotice: () => {} })
	const [row] = await sql`
		SELECT count(*)::int AS n FROM pgboss.job
		WHERE name = 'document-process' AND (retry_count > 0 OR output::text LIKE '%heartbeat timeout%')`
	await sql.end()
	return row!.n
}

describeEachDriver('crash recovery (kill -9 mid-pipeline)', (driver) => {
	const cleanups: (() => Promise<void> | void)[] = []
	afterAll(async () => {
		for (const cleanup of cleanups.reverse()) await cleanup()
	})

	it('brings every document to done after the process is killed and started again', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'memory-crash-'))
		cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
		const env: Record<string, string> = { MEMORY_DATA_DIR: dataDir, MEMORY_WORKER_CONCURRENCY: '2', LOG_LEVEL: 'info' }
		if (driver === 'postgres') {
			const database = await createTestDatabase('memcrash')
			cleanups.push(database.drop)
			env.DATABASE_URL = database.url
		}
		let server: ServerProcess = await spawnServer(env)
		cleanups.push(() => server.kill('SIGKILL'))
		let key = server.firstKey
		if (!key) {
			const { run } = await import('../../testkit/process.ts')
			const created = await run([process.execPath, 'server/cli/keys.ts', 'create', '--name', 'crash'], env)
			key = created.stdout.trim().split('\n').at(-1)!
		}
		const call = async (method: string, path: string, body?: unknown) => {
			const response = await fetch(`${server.url}${path}`, {
				method,
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			})
			return response.json() as Promise<any>
		}

		// Large documents sent at once, so the workers are busy with them for a while.
		const ids: string[] = (
			await Promise.all(
				Array.from({ length: DOCUMENTS }, (_, i) =>
					call('POST', '/v3/documents', {
						content: Array.from({ length: 120 }, (_, p) => paragraph(i, p)).join('\n\n'),
						containerTag: 'crash',
						dreaming: 'instant',
					}),
				),
			)
		).map((added) => added.id)
		// Killed as soon as the pipeline has started: with 16 large documents and two workers, most are unfinished then
		// (waiting for the first to be done let a fast machine finish them all first).
		for (let polls = 0; polls < 1000; polls++) {
			if ((await call('GET', `/v3/documents/${ids[0]}`)).status !== 'queued') break
			await Bun.sleep(10)
		}
		const unfinishedAtKill = (await call('GET', '/v3/documents/processing')).totalCount
		await server.kill('SIGKILL')
		expect(unfinishedAtKill).toBeGreaterThan(0)

		server = await spawnServer(env)
		const deadline = Date.now() + 90_000
		const statuses = new Map<string, string>()
		while (Date.now() < deadline) {
			for (const id of ids) {
				if (statuses.get(id) === 'done') continue
				statuses.set(id, (await call('GET', `/v3/documents/${id}`)).status)
			}
			if ([...statuses.values()].every((s) => s === 'done')) break
			await Bun.sleep(250)
		}
		expect([...statuses.values()].filter((s) => s !== 'done')).toEqual([])
		// A job was active when the process died, and it was retried rather than lost. On PostgreSQL its worker's
		// heartbeat lapses only after some seconds, which may be after the start-up sweep already finished the documents.
		let interrupted = await interruptedJobs(server, env)
		for (let polls = 0; interrupted === 0 && polls < 120; polls++) {
			await Bun.sleep(250)
			interrupted = await interruptedJobs(server, env)
		}
		expect(interrupted).toBeGreaterThan(0)
		const sample = await call('GET', `/v3/documents/${ids[0]}`)
		// The four pipeline stages, then memory formation (instant dreaming).
		expect(sample.stages.map((s: { outcome: string }) => s.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok'])
		const chunks = await call('GET', `/v3/documents/${ids.at(-1)}/chunks`)
		expect(chunks.total).toBeGreaterThan(1)
		await server.kill()
	}, 180_000)
})
