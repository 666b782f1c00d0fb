import { expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { createTestDatabase, describePostgres } from '../../testkit/postgres.ts'
import { run, type ServerProcess, spawnServer } from '../../testkit/process.ts'

const DOCUMENTS = 48
const text = (i: number) =>
	`Report ${i}. The team at station ${i % 7} counted ${i * 3} bicycles and ${i + 11} kettles this week. `.repeat(6)

describePostgres('two api and two worker processes on one PostgreSQL', () => {
	it('processes every document exactly once under mixed load, with a worker killed -9 mid-way', async () => {
		const database = await createTestDatabase('memscale')
		const dataDir = mkdtempSync(join(tmpdir(), 'memory-scale-'))
		const env = { DATABASE_URL: database.url, MEMORY_DATA_DIR: dataDir, MEMORY_WORKER_CONCURRENCY: '2' }
		const processes: ServerProcess[] = []
		const sql = postgres(database.url, { max: 1, onnotice: () => {} })
		try {
			const created = await run([process.execPath, 'server/cli/keys.ts', 'create', '--name', 'scale'], env)
			const key = created.stdout.trim().split('\n').at(-1)!
			const apis = [await spawnServer(env, ['--role', 'api']), await spawnServer(env, ['--role', 'api'])]
			const workers = [await spawnServer(env, ['--role', 'worker']), await spawnServer(env, ['--role', 'worker'])]
			processes.push(...apis, ...workers)
			const call = async (api: ServerProcess, method: string, path: string, body?: unknown) => {
				const response = await fetch(`${api.url}${path}`, {
					method,
					headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
					body: body === undefined ? undefined : JSON.stringify(body),
				})
				return { status: response.status, body: (await response.json()) as any }
			}
			const statuses = async (ids: string[]) =>
				sql<{ status: string; n: number }[]>`
					SELECT status, count(*)::int AS n FROM documents WHERE id = ANY(${ids}) GROUP BY status`
			const count = (rows: { status: string; n: number }[], status: string) =>
				rows.find((row) => row.status === status)?.n ?? 0

			// Adds spread over both api processes and three containers, each followed by a search on the other.
			const ids: string[] = []
			let killed = false
			for (let i = 0; i < DOCUMENTS; i++) {
				const added = await call(apis[i % 2]!, 'POST', '/v3/documents', {
					content: text(i),
					containerTag: `scale-${i % 3}`,
				})
				expect(added.status).toBe(200)
				ids.push(added.body.id)
				const searched = await call(apis[(i + 1) % 2]!, 'POST', '/v4/search', {
					q: `bicycles at station ${i % 7}`,
					containerTag: `scale-${i % 3}`,
					searchMode: 'hybrid',
				})
				expect(searched.status).toBe(200)
				if (!killed && i >= DOCUMENTS / 2) {
					// Mid-way: once documents are done and others are still on their way, one worker dies without a word.
					for (let wait = 0; wait < 200 && count(await statuses(ids), 'done') === 0; wait++) await Bun.sleep(100)
					await workers[0]!.kill('SIGKILL')
					killed = true
				}
			}
			expect(killed).toBe(true)

			// The surviving worker takes over the dead one's jobs once their heartbeats lapse.
			const deadline = Date.now() + 150_000
			let rows = await statuses(ids)
			while (count(rows, 'done') + count(rows, 'failed') < DOCUMENTS && Date.now() < deadline) {
				await Bun.sleep(500)
				rows = await statuses(ids)
			}
			expect(count(rows, 'done')).toBe(DOCUMENTS)

			// Exactly once: each document's published chunks hold each position once.
			const duplicated = await sql`
				SELECT c.document_id, c.position FROM chunks c
				JOIN documents d ON d.id = c.document_id AND c.generation = d.chunk_generation
				GROUP BY 1, 2 HAVING count(*) > 1`
			expect(duplicated.length).toBe(0)
			const withChunks = await sql<{ n: number }[]>`
				SELECT count(DISTINCT c.document_id)::int AS n FROM chunks c
				JOIN documents d ON d.id = c.document_id AND c.generation = d.chunk_generation`
			expect(withChunks[0]!.n).toBe(DOCUMENTS)
			// Every document's job completed once; none is left queued, active or failed. The dead worker's jobs may
			// still be active here (a batch completes its jobs together, after its documents are done): they are
			// retried, and complete, once their heartbeats lapse.
			const jobStates = () => sql<{ state: string; n: number }[]>`
				SELECT state, count(*)::int AS n FROM pgboss.job WHERE name = 'document-process' GROUP BY state`
			let jobs = await jobStates()
			while (jobs.some((job) => ['created', 'retry', 'active'].includes(job.state)) && Date.now() < deadline) {
				await Bun.sleep(500)
				jobs = await jobStates()
			}
			expect(jobs.filter((job) => job.state !== 'completed')).toEqual([])
			expect(jobs.find((job) => job.state === 'completed')?.n).toBe(DOCUMENTS)
		} finally {
			await sql.end()
			for (const proc of processes) await proc.kill('SIGKILL').catch(() => {})
			await database.drop()
			rmSync(dataDir, { recursive: true, force: true })
		}
	}, 240_000)
})
