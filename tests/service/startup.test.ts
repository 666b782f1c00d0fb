import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startOpenAIEmulator } from '../../testkit/emulators/openai.ts'
import { createTestDatabase, describePostgres } from '../../testkit/postgres.ts'
import { run, spawnServer } from '../../testkit/process.ts'

const main = (args: string[], env: Record<string, string>) =>
	run([process.execPath, 'server/main.ts', ...args], { PORT: '0', ...env })

describe('startup', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-startup-'))
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

	it('refuses to start when the configured embedder differs from the one the store was built with', async () => {
		const first = await spawnServer({ MEMORY_DATA_DIR: dataDir })
		await first.kill()
		const emulator = await startOpenAIEmulator()
		try {
			const refused = await main([], {
				MEMORY_DATA_DIR: dataDir,
				OPENAI_BASE_URL: emulator.url,
				OPENAI_API_KEY: 'test',
			})
			expect(refused.code).toBe(1)
			expect(refused.stderr).toContain('memory service cannot start')
			expect(refused.stderr).toContain('local:wink-sg-100d')
			expect(refused.stderr).not.toContain('    at ')
		} finally {
			await emulator.close()
		}
	}, 60_000)

	it('refuses separate api/worker roles on the embedded store, and an unknown role', async () => {
		const api = await main(['--role', 'api'], { MEMORY_DATA_DIR: dataDir })
		expect(api.code).toBe(1)
		expect(api.stderr).toContain('needs PostgreSQL')
		const unknown = await main(['--role=cook'], { MEMORY_DATA_DIR: dataDir })
		expect(unknown.code).toBe(1)
		expect(unknown.stderr).toContain('--role must be api, worker or all')
	}, 30_000)
})

describePostgres('separate api and worker processes on PostgreSQL', () => {
	it('serves the API from one process while another processes the documents', async () => {
		const database = await createTestDatabase('memroles')
		const dataDir = mkdtempSync(join(tmpdir(), 'memory-roles-'))
		const env = { DATABASE_URL: database.url, MEMORY_DATA_DIR: dataDir }
		const created = await run([process.execPath, 'server/cli/keys.ts', 'create', '--name', 'roles'], env)
		const key = created.stdout.trim().split('\n').at(-1)!
		const api = await spawnServer(env, ['--role', 'api'])
		const worker = await spawnServer(env, ['--role', 'worker'])
		try {
			const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
			const added = (await (
				await fetch(`${api.url}/v3/documents`, {
					method: 'POST',
					headers,
					body: JSON.stringify({ content: 'Processed by the worker process.', containerTag: 'roles' }),
				})
			).json()) as { id: string }
			let status = 'queued'
			for (let i = 0; i < 200 && status !== 'done'; i++) {
				await Bun.sleep(100)
				status = (
					(await (await fetch(`${api.url}/v3/documents/${added.id}`, { headers })).json()) as { status: string }
				).status
			}
			expect(status).toBe('done')
			expect(worker.url).toBe('')
		} finally {
			await api.kill()
			await worker.kill()
			await database.drop()
			rmSync(dataDir, { recursive: true, force: true })
		}
	}, 60_000)
})
