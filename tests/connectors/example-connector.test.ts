import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { createApiKey } from '../../core/auth/api-keys.ts'
import { createLogger } from '../../core/logger.ts'
import { withDefaultFiles } from '../../server/defaults.ts'
import { loadConfig } from '../../server/load-config.ts'
import { type Service, startService } from '../../server/service.ts'
import { samplePdf } from '../../testkit/sample-files.ts'
import { SHARED_EMBEDDER_CACHE } from '../../testkit/service.ts'
import { waitFor } from '../../testkit/wait.ts'

const root = join(import.meta.dir, '..', '..')

/** The example connector, loaded the way a user adds a third-party one: a package and one config line, no core change. */
describe('example folder connector from memory.config.ts', () => {
	// Inside the checkout, so the config resolves the package by name from its node_modules.
	mkdirSync(join(root, '.cache'), { recursive: true })
	const dir = mkdtempSync(join(root, '.cache', 'example-connector-'))
	const folder = join(dir, 'notes')
	let service: Service
	let key: string
	const call = async (method: string, path: string, body?: unknown) => {
		const response = await service.app!.handle(
			new Request(`http://localhost${path}`, {
				method,
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			}),
		)
		const text = await response.text()
		return { status: response.status, body: text ? JSON.parse(text) : null }
	}
	const settled = async (id: string, since: string) => {
		for (let i = 0; i < 600; i++) {
			const { body } = await call('GET', `/v3/connections/${id}`)
			if (body.lastSyncRun && body.lastSyncRun.status !== 'running' && body.lastSyncRun.startedAt >= since) return body
			await Bun.sleep(50)
		}
		throw new Error('no sync finished')
	}

	beforeAll(async () => {
		mkdirSync(join(folder, 'sub'), { recursive: true })
		writeFileSync(join(folder, 'garden.md'), '# Garden\n\nTomatoes need six hours of sun.')
		writeFileSync(join(folder, 'sub', 'bikes.txt'), 'The blue bike needs new brakes.')
		writeFileSync(join(folder, 'report.pdf'), await samplePdf('Harvest report', ['The pumpkin harvest weighed 40 kg.']))
		writeFileSync(join(folder, 'archive.zip'), zipSync({ 'a.txt': strToU8('inside a zip') }))
		// The connector is a package of its own, installed by name; the config adds it to the defaults in one line.
		writeFileSync(
			join(dir, 'memory.config.ts'),
			`import { folderConnector } from '@memory-service/example-folder-connector'
export default { plugins: (settings, defaults) => [...defaults, folderConnector({ root: '${folder}' })] }
`,
		)
		const config = await loadConfig({
			MEMORY_CONFIG: join(dir, 'memory.config.ts'),
			MEMORY_DATA_DIR: join(dir, 'data'),
			MEMORY_EMBEDDER: 'local',
			MEMORY_CACHE_DIR: SHARED_EMBEDDER_CACHE,
		})
		expect(config.plugins.map((plugin) => plugin.name)).toContain('folder')
		service = await startService({
			settings: config.settings,
			plugins: await withDefaultFiles(config.plugins, config.settings),
			logger: createLogger('error'),
			env: {},
		})
		key = service.firstKey ?? (await createApiKey(service.plugins.storage, { name: 't', orgName: 'default' })).key
	}, 180_000)
	afterAll(async () => {
		await service?.stop()
		rmSync(dir, { recursive: true, force: true })
	})

	it('creates a connection without authorization, imports the folder, skips unchanged files and reconciles deletions', async () => {
		const since = new Date().toISOString()
		const created = await call('POST', '/v3/connections/folder', { containerTag: 'notes' })
		expect(created).toMatchObject({ status: 200, body: { authLink: null, expiresIn: null } })
		const first = await settled(created.body.id, since)
		// The zip is refused by file ingestion: that item fails, the run completes.
		expect(first).toMatchObject({ status: 'active', lastSyncRun: { status: 'completed', added: 3, failed: 1 } })
		const documents = await call('POST', '/v3/connections/folder/documents', { containerTags: ['notes'] })
		expect(documents.body.map((d: { title: string }) => d.title).sort()).toEqual([
			'garden.md',
			'report.pdf',
			'sub/bikes.txt',
		])
		const failures = await call('GET', `/v3/connections/${created.body.id}/sync-runs/${first.lastSyncRun.id}/failures`)
		expect(failures.body.failures).toMatchObject([{ externalId: 'archive.zip' }])
		expect(failures.body.failures[0].error).toContain('Unsupported file type')
		// The PDF went through file ingestion: its text layer is searchable and its original is kept.
		const found = await waitFor(async () => {
			const search = await call('POST', '/v3/search', { q: 'pumpkin harvest weight', containerTags: ['notes'] })
			return search.body.results?.find((r: { title: string }) => r.title === 'report.pdf')
		}, 60_000)
		expect(JSON.stringify(found.chunks)).toContain('40 kg')
		const file = await call('GET', `/v3/documents/${found.documentId}/file-url`)
		expect(file.status).toBe(200)

		rmSync(join(folder, 'sub', 'bikes.txt'))
		const again = new Date().toISOString()
		expect(
			(
				await service.app!.handle(
					new Request('http://localhost/v3/connections/folder/import', {
						method: 'POST',
						headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
						body: '{}',
					}),
				)
			).status,
		).toBe(202)
		const second = await settled(created.body.id, again)
		expect(second.lastSyncRun).toMatchObject({ status: 'completed', added: 0, skipped: 2, deleted: 1 })
		const left = await call('POST', '/v3/connections/folder/documents', {})
		expect(left.body.map((d: { title: string }) => d.title).sort()).toEqual(['garden.md', 'report.pdf'])
	}, 120_000)
})
