import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type GmailEmulator, startGmailEmulator } from './emulators/google-gmail.ts'
import { type ServerProcess, spawnServer } from './helpers/process.ts'

const THREAD_COUNT = 60

describe('Gmail sync across a crash', () => {
	let emulator: GmailEmulator
	const dataDir = mkdtempSync(join(tmpdir(), 'gmail-crash-'))
	let server: ServerProcess | null = null
	afterAll(async () => {
		await server?.kill()
		emulator?.stop()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes after kill -9 from its last page, importing every thread once', async () => {
		emulator = await startGmailEmulator({ messageDelayMs: 40 })
		emulator.setThreadPageSize(10)
		for (let i = 0; i < THREAD_COUNT; i++) {
			emulator.deliver({ subject: `Garden note ${i}`, text: `Fact number ${i} about the garden.` })
		}
		const env = {
			MEMORY_DATA_DIR: dataDir,
			MEMORY_EXTRACTOR: 'none',
			MEMORY_CONNECTORS: 'gmail',
			GOOGLE_ACCOUNTS_URL: emulator.url,
			GOOGLE_OAUTH_URL: emulator.url,
			GOOGLE_API_URL: emulator.url,
			GOOGLE_CLIENT_ID: emulator.google.clientId,
			GOOGLE_CLIENT_SECRET: emulator.google.clientSecret,
		}
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
		const created = await call('/v3/connections/gmail', { method: 'POST', body: { containerTag: 'garden' } })
		expect(created.status).toBe(200)
		const consent = await fetch(created.body.authLink, { redirect: 'manual' })
		const landed = await fetch(consent.headers.get('location')!)
		expect(await landed.json()).toMatchObject({ success: true, connectionId: created.body.id })
		const id = created.body.id as string
		const imported = async () =>
			(await call('/v3/connections/gmail/documents', { method: 'POST', body: { containerTags: ['garden'] } })).body
				.length as number
		for (let i = 0; i < 600 && (await imported()) < 15; i++) await Bun.sleep(20)
		const before = await imported()
		expect(before).toBeGreaterThanOrEqual(15)
		expect(before).toBeLessThan(THREAD_COUNT)
		await server.kill('SIGKILL')

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
		expect(await imported()).toBe(THREAD_COUNT)
		const listed = await call('/v3/documents/list', { method: 'POST', body: { containerTags: ['garden'], limit: 200 } })
		expect(listed.body.pagination.totalItems).toBe(THREAD_COUNT)
		// Threads imported before the crash were not read again (their messages had not changed).
		expect(emulator.rawReads()).toBeLessThan(THREAD_COUNT + 5)
	}, 180_000)
})
