import { afterAll, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGithubEmulator } from './emulators/github.ts'
import { describeEachDriver } from './helpers/drivers.ts'
import { createTestDatabase } from './helpers/postgres.ts'
import { run, type ServerProcess, spawnServer } from './helpers/process.ts'

const FILE_COUNT = 80

describeEachDriver('GitHub sync across a crash', (driver) => {
	const emulator = startGithubEmulator({ blobDelayMs: 250 })
	const dataDir = mkdtempSync(join(tmpdir(), 'connector-crash-'))
	const env: Record<string, string> = {
		MEMORY_DATA_DIR: dataDir,
		MEMORY_EXTRACTOR: 'none',
		MEMORY_CONNECTORS: 'github',
		GITHUB_API_URL: emulator.url,
		GITHUB_WEB_URL: emulator.url,
		GITHUB_CLIENT_ID: emulator.clientId,
		GITHUB_CLIENT_SECRET: emulator.clientSecret,
	}
	let server: ServerProcess | null = null
	let dropDatabase = async () => {}
	afterAll(async () => {
		await server?.kill()
		emulator.stop()
		await dropDatabase()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes after kill -9 from its checkpoint, importing every file once', async () => {
		const files: Record<string, string> = {}
		for (let i = 0; i < FILE_COUNT; i++)
			files[`notes/note-${i}.md`] = `# Note ${i}\n\nFact number ${i} about the garden.`
		emulator.createRepo('octo/notes', files)
		if (driver === 'postgres') {
			const database = await createTestDatabase('memconnector')
			dropDatabase = database.drop
			env.DATABASE_URL = database.url
		}
		server = await spawnServer(env)
		const key =
			server.firstKey ??
			(await run([process.execPath, 'server/cli/keys.ts', 'create', '--name', 'crash'], env)).stdout
				.trim()
				.split('\n')
				.at(-1)!
		const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
			const response = await fetch(`${server!.url}${path}`, {
				method: init.method ?? 'GET',
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body: init.body === undefined ? undefined : JSON.stringify(init.body),
			})
			return { status: response.status, body: (await response.json()) as any }
		}
		const created = await call('/v3/connections/github', { method: 'POST', body: { containerTag: 'garden' } })
		const consent = await fetch(created.body.authLink, { redirect: 'manual' })
		const landed = await fetch(consent.headers.get('location')!)
		expect(await landed.json()).toMatchObject({ success: true, connectionId: created.body.id })
		const id = created.body.id as string
		const configured = await call(`/v3/connections/${id}/configure`, {
			method: 'POST',
			body: { resources: [{ full_name: 'octo/notes' }] },
		})
		expect(configured.status).toBe(200)
		const imported = async () =>
			(await call('/v3/connections/github/documents', { method: 'POST', body: { containerTags: ['garden'] } })).body
				.length as number
		for (let i = 0; i < 600 && (await imported()) < 15; i++) await Bun.sleep(20)
		const before = await imported()
		expect(before).toBeGreaterThanOrEqual(15)
		expect(before).toBeLessThan(FILE_COUNT)
		await server.kill('SIGKILL')
		const readsBeforeCrash = emulator.blobReads()

		server = await spawnServer(env)
		let connection: any
		for (let i = 0; i < 1200; i++) {
			connection = (await call(`/v3/connections/${id}`)).body
			if (connection.lastSyncRun?.status === 'completed') break
			await Bun.sleep(50)
		}
		expect(connection.lastSyncRun.status).toBe('completed')
		const runs = (await call(`/v3/connections/${id}/sync-runs`)).body.syncRuns
		expect(runs.some((run: { status: string }) => run.status === 'interrupted')).toBe(true)
		expect(await imported()).toBe(FILE_COUNT)
		const listed = await call('/v3/documents/list', { method: 'POST', body: { containerTags: ['garden'], limit: 200 } })
		expect(listed.body.pagination.totalItems).toBe(FILE_COUNT)
		// Files imported before the crash were not read again: only those it had not imported were read after it.
		expect(emulator.blobReads() - readsBeforeCrash).toBeLessThanOrEqual(FILE_COUNT - before)
	}, 180_000)
})
