import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { block, startNotionEmulator } from './emulators/notion.ts'
import { type ServerProcess, spawnServer } from './helpers/process.ts'

const PAGE_COUNT = 60

describe('Notion sync across a crash', () => {
	const emulator = startNotionEmulator({ blockDelayMs: 60 })
	const dataDir = mkdtempSync(join(tmpdir(), 'notion-crash-'))
	const env = {
		MEMORY_DATA_DIR: dataDir,
		MEMORY_EXTRACTOR: 'none',
		MEMORY_CONNECTORS: 'notion',
		NOTION_API_URL: emulator.url,
		NOTION_CLIENT_ID: emulator.clientId,
		NOTION_CLIENT_SECRET: emulator.clientSecret,
		NOTION_REQUESTS_PER_SECOND: '0',
	}
	let server: ServerProcess | null = null
	afterAll(async () => {
		await server?.kill()
		emulator.stop()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes after kill -9, reading only the pages not imported yet, and imports every page once', async () => {
		for (let i = 0; i < PAGE_COUNT; i++) {
			emulator.addPage({ title: `Garden note ${i}`, blocks: [block.paragraph(`Fact number ${i} about the garden.`)] })
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
		const created = await call('/v3/connections/notion', { method: 'POST', body: { containerTag: 'garden' } })
		const consent = await fetch(created.body.authLink, { redirect: 'manual' })
		const landed = await fetch(consent.headers.get('location')!)
		expect(await landed.json()).toMatchObject({ success: true, connectionId: created.body.id })
		const id = created.body.id as string
		const imported = async () =>
			(await call('/v3/connections/notion/documents', { method: 'POST', body: { containerTags: ['garden'] } })).body
				.length as number
		for (let i = 0; i < 600 && (await imported()) < 12; i++) await Bun.sleep(20)
		const before = await imported()
		expect(before).toBeGreaterThanOrEqual(12)
		expect(before).toBeLessThan(PAGE_COUNT)
		await server.kill('SIGKILL')
		const readsBefore = emulator.calls(/\/children$/).length

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
		expect(await imported()).toBe(PAGE_COUNT)
		const listed = await call('/v3/documents/list', { method: 'POST', body: { containerTags: ['garden'], limit: 200 } })
		expect(listed.body.pagination.totalItems).toBe(PAGE_COUNT)
		// Pages imported before the crash were not read again (the one in flight may have been).
		expect(emulator.calls(/\/children$/).length - readsBefore).toBeLessThanOrEqual(PAGE_COUNT - before + 2)
	}, 300_000)
})
