import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGoogleEmulator } from './emulators/google.ts'
import { addDriveRoutes } from './emulators/google-drive.ts'
import { type ServerProcess, spawnServer } from './helpers/process.ts'

const FILE_COUNT = 80

describe('Google Drive sync across a crash', () => {
	const google = startGoogleEmulator()
	const drive = addDriveRoutes(google, { contentDelayMs: 40 })
	const dataDir = mkdtempSync(join(tmpdir(), 'drive-crash-'))
	const env = {
		MEMORY_DATA_DIR: dataDir,
		MEMORY_EXTRACTOR: 'none',
		MEMORY_CONNECTORS: 'google-drive',
		GOOGLE_ACCOUNTS_URL: google.url,
		GOOGLE_OAUTH_URL: google.url,
		GOOGLE_API_URL: google.url,
		GOOGLE_CLIENT_ID: google.clientId,
		GOOGLE_CLIENT_SECRET: google.clientSecret,
	}
	let server: ServerProcess | null = null
	afterAll(async () => {
		await server?.kill()
		google.stop()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes after kill -9, importing every file once and reading files imported before the crash no more', async () => {
		for (let i = 0; i < FILE_COUNT; i++) drive.doc(`Note ${i}`, `# Note ${i}\n\nFact number ${i} about the orchard.`)
		server = await spawnServer(env)
		const key = server.firstKey!
		const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
			const response = await fetch(`${server!.url}${path}`, {
				method: init.method ?? 'GET',
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body: init.body === undefined ? undefined : JSON.stringify(init.body),
			})
			return { status: response.status, body: (await response.json()) as any }
		}
		const created = await call('/v3/connections/google-drive', { method: 'POST', body: { containerTag: 'orchard' } })
		expect(created.status).toBe(200)
		const consent = await fetch(created.body.authLink, { redirect: 'manual' })
		const landed = await fetch(consent.headers.get('location')!)
		expect(await landed.json()).toMatchObject({ success: true, connectionId: created.body.id })
		const id = created.body.id as string
		const imported = async () =>
			(await call('/v3/connections/google-drive/documents', { method: 'POST', body: { containerTags: ['orchard'] } }))
				.body.length as number
		for (let i = 0; i < 600 && (await imported()) < 15; i++) await Bun.sleep(20)
		const before = await imported()
		expect(before).toBeGreaterThanOrEqual(15)
		expect(before).toBeLessThan(FILE_COUNT)
		await server.kill('SIGKILL')
		const exportsBefore = drive.downloads()

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
		const listed = await call('/v3/documents/list', {
			method: 'POST',
			body: { containerTags: ['orchard'], limit: 200 },
		})
		expect(listed.body.pagination.totalItems).toBe(FILE_COUNT)
		// Files imported before the crash were not exported again (at most the one in flight).
		expect(drive.downloads() - exportsBefore).toBeLessThanOrEqual(FILE_COUNT - before + 2)
		expect(connection.status).toBe('active')
	}, 180_000)
})
