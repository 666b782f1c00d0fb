import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGraphEmulator } from './emulators/graph.ts'
import { type ServerProcess, spawnServer } from './helpers/process.ts'

const FILE_COUNT = 60

describe('OneDrive sync across a crash', () => {
	const emulator = startGraphEmulator({ downloadDelayMs: 40, pageSize: 10 })
	const dataDir = mkdtempSync(join(tmpdir(), 'onedrive-crash-'))
	const env = {
		MEMORY_DATA_DIR: dataDir,
		MEMORY_EXTRACTOR: 'none',
		MEMORY_CONNECTORS: 'onedrive',
		MICROSOFT_GRAPH_URL: emulator.url,
		MICROSOFT_LOGIN_URL: emulator.url,
		MICROSOFT_CLIENT_ID: emulator.clientId,
		MICROSOFT_CLIENT_SECRET: emulator.clientSecret,
	}
	let server: ServerProcess | null = null
	afterAll(async () => {
		await server?.kill()
		emulator.stop()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes the first listing after kill -9 from its last page, importing every file once', async () => {
		const drive = emulator.drive('ada')
		for (let i = 0; i < FILE_COUNT; i++)
			drive.addFile(`note-${i}.txt`, `Note ${i}: fact number ${i} about the orchard.`)
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
		emulator.consentAs('ada')
		const created = await call('/v3/connections/onedrive', { method: 'POST', body: { containerTag: 'orchard' } })
		expect(created.status).toBe(200)
		const consent = await fetch(created.body.authLink, { redirect: 'manual' })
		const landed = await fetch(consent.headers.get('location')!)
		expect(await landed.json()).toMatchObject({ success: true, connectionId: created.body.id })
		const id = created.body.id as string
		const imported = async () =>
			(await call('/v3/connections/onedrive/documents', { method: 'POST', body: { containerTags: ['orchard'] } })).body
				.length as number
		for (let i = 0; i < 600 && (await imported()) < 15; i++) await Bun.sleep(20)
		const before = await imported()
		expect(before).toBeGreaterThanOrEqual(15)
		expect(before).toBeLessThan(FILE_COUNT)
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
		expect(await imported()).toBe(FILE_COUNT)
		const listed = await call('/v3/documents/list', {
			method: 'POST',
			body: { containerTags: ['orchard'], limit: 200 },
		})
		expect(listed.body.pagination.totalItems).toBe(FILE_COUNT)
		// The listing resumed from its last page: files imported before the crash were not downloaded again.
		expect(emulator.downloadCount()).toBeLessThan(FILE_COUNT + 3)
		// It went on from the page it had reached: the drive was listed from its beginning once.
		expect(emulator.log.filter((line) => line === 'GET delta full').length).toBe(1)
	}, 240_000)
})
