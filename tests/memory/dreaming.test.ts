import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { createApiKey } from '../../core/auth/api-keys.ts'
import { settingsFromEnv } from '../../core/config/settings.ts'
import { embeddedDatabaseDir } from '../../core/index.ts'
import { createLogger } from '../../core/logger.ts'
import { embedderLocal } from '../../plugins/embedder-local/index.ts'
import { filesLocal } from '../../plugins/files-local/index.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { type Service, startService } from '../../server/service.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { createTestDatabase } from '../../testkit/postgres.ts'
import { SHARED_EMBEDDER_CACHE } from '../../testkit/service.ts'
import { testExtractor } from '../../testkit/test-extractor.ts'

/** A store that outlives the service on it, so a test can stop the service and start another on the same data. */
async function persistentStore(driver: 'pglite' | 'postgres') {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-dreaming-'))
	const database = driver === 'postgres' ? await createTestDatabase('dreaming') : null
	return {
		env: { MEMORY_DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) },
		async start(quietSeconds: number): Promise<Service> {
			const env = { ...this.env, MEMORY_DREAMING_QUIET_SECONDS: String(quietSeconds) }
			return startService({
				settings: settingsFromEnv(env),
				plugins: [
					storagePostgres(database ? { databaseUrl: database.url } : { dataDir: embeddedDatabaseDir(dataDir) }),
					embedderLocal({ cacheDir: SHARED_EMBEDDER_CACHE }),
					testExtractor(),
					filesLocal({ dir: join(dataDir, 'files') }),
				],
				logger: createLogger(process.env.TEST_LOG ?? 'error'),
				env,
			})
		},
		async cleanup() {
			await database?.drop()
			rmSync(dataDir, { recursive: true, force: true })
		},
	}
}

function client(service: Service, key: string) {
	return async (method: string, path: string, body?: unknown) => {
		const response = await service.app!.handle(
			new Request(`http://localhost${path}`, {
				method,
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			}),
		)
		return { status: response.status, body: (await response.json()) as any }
	}
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 30_000) {
	const deadline = Date.now() + ms
	for (;;) {
		const value = await read()
		if (done(value)) return value
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
		await Bun.sleep(50)
	}
}

describeEachDriver('dreaming', (driver) => {
	let store: Awaited<ReturnType<typeof persistentStore>>
	let service: Service | null = null
	let key: string
	beforeAll(async () => {
		store = await persistentStore(driver)
	})
	afterAll(async () => {
		await service?.stop()
		await store.cleanup()
	})

	async function start(quietSeconds: number) {
		service = await store.start(quietSeconds)
		key ??= service.firstKey ?? (await createApiKey(service.plugins.storage, { name: 'k', orgName: 'default' })).key
		return client(service, key)
	}
	async function stop() {
		await service?.stop()
		service = null
	}
	const documentOf = (call: ReturnType<typeof client>, id: string) => async () =>
		(await call('GET', `/v3/documents/${id}`)).body

	it('dynamic: the document is done first, its memories form once the container has been quiet', async () => {
		const call = await start(1)
		const first = await call('POST', '/v3/documents', { content: 'Alex lives in Boston.', containerTag: 'dyn_1' })
		const second = await call('POST', '/v3/documents', { content: 'Alex moved to Seattle.', containerTag: 'dyn_1' })
		for (const added of [first, second]) {
			const done = await waitFor(documentOf(call, added.body.id), (d) => d.status === 'done', 'done')
			// Done but not yet dreamed, unless the batch already ran: then its memories are there too.
			if (done.dreamingStatus === 'dreaming') expect(done.memories).toBeUndefined()
		}
		const dreamed = await waitFor(
			documentOf(call, second.body.id),
			(d) => d.dreamingStatus === 'done',
			'dreamingStatus done',
		)
		expect(dreamed.stages.map((s: { stage: string }) => s.stage)).toEqual([
			'extracting',
			'chunking',
			'embedding',
			'indexing',
			'memories',
		])
		expect(dreamed.memories).toEqual([
			expect.objectContaining({ memory: 'Alex moved to Seattle.', version: 2, isLatest: true }),
		])
		// The batch formed the container's documents in order: the later one updates the earlier one.
		const earlier = await waitFor(documentOf(call, first.body.id), (d) => d.dreamingStatus === 'done', 'first dreamed')
		expect(earlier.memories).toEqual([expect.objectContaining({ memory: 'Alex lives in Boston.', isLatest: false })])
		await stop()
	}, 60_000)

	it('instant: memories are formed when the document reaches done', async () => {
		const call = await start(30)
		const added = await call('POST', '/v3/documents', {
			content: 'Bea owns a red bike.',
			containerTag: 'inst_1',
			dreaming: 'instant',
		})
		const done = await waitFor(documentOf(call, added.body.id), (d) => d.status === 'done', 'done')
		expect(done.dreamingStatus).toBe('done')
		expect(done.memories).toEqual([expect.objectContaining({ memory: 'Bea owns a red bike.' })])
		await stop()
	}, 60_000)

	it('loses no pending batch across a restart, even one whose job was lost', async () => {
		let call = await start(3600)
		const kept = await call('POST', '/v3/documents', { content: 'Cleo lives in Oslo.', containerTag: 'restart_1' })
		const lost = await call('POST', '/v3/documents', { content: 'Dan lives in Rome.', containerTag: 'restart_2' })
		for (const added of [kept, lost]) {
			const done = await waitFor(documentOf(call, added.body.id), (d) => d.status === 'done', 'done')
			expect(done.dreamingStatus).toBe('dreaming')
		}
		// The document list shows it too, so a client can tell which memories are still to come.
		const listed = await call('POST', '/v3/documents/list', { containerTags: ['restart_1'] })
		expect(listed.body.memories).toEqual([expect.objectContaining({ id: kept.body.id, dreamingStatus: 'dreaming' })])
		// One batch's job disappears (as if the process died between finishing the document and arming it).
		await deleteDreamJob(service!, store.env, 'restart_2')
		await stop()

		call = await start(1)
		for (const added of [kept, lost]) {
			const dreamed = await waitFor(documentOf(call, added.body.id), (d) => d.dreamingStatus === 'done', 'dreamed')
			expect(dreamed.memories).toHaveLength(1)
		}
		const relisted = await call('POST', '/v3/documents/list', { containerTags: ['restart_1'] })
		expect(relisted.body.memories).toEqual([expect.objectContaining({ id: kept.body.id, dreamingStatus: 'done' })])
		await stop()
	}, 90_000)
})

/** Removes the queued dreaming job of a container from pg-boss's table. */
async function deleteDreamJob(service: Service, env: Record<string, string>, containerTag: string) {
	const statement = "DELETE FROM pgboss.job WHERE name = 'memory-dream' AND singleton_key LIKE $1"
	const pattern = `%:${containerTag}`
	if (env.DATABASE_URL) {
		const sql = postgres(env.DATABASE_URL, { max: 1, onnotice: () => {} })
		await sql.unsafe(statement, [pattern])
		await sql.end()
		return
	}
	const database = service.plugins.storage.jobDatabase()
	if (database.kind !== 'executor') throw new Error('expected the embedded store')
	await database.executeSql(statement, [pattern])
}

describe('dreaming settings', () => {
	it('reads the quiet interval and the maximum wait, refusing malformed values', () => {
		expect(settingsFromEnv({})).toMatchObject({ dreamingQuietSeconds: 30, dreamingMaxWaitSeconds: 300 })
		expect(
			settingsFromEnv({ MEMORY_DREAMING_QUIET_SECONDS: '5', MEMORY_DREAMING_MAX_WAIT_SECONDS: '60' }),
		).toMatchObject({ dreamingQuietSeconds: 5, dreamingMaxWaitSeconds: 60 })
		// The maximum wait is never shorter than the quiet interval.
		expect(settingsFromEnv({ MEMORY_DREAMING_QUIET_SECONDS: '90' }).dreamingMaxWaitSeconds).toBe(300)
		expect(
			settingsFromEnv({ MEMORY_DREAMING_QUIET_SECONDS: '90', MEMORY_DREAMING_MAX_WAIT_SECONDS: '10' })
				.dreamingMaxWaitSeconds,
		).toBe(90)
		expect(() => settingsFromEnv({ MEMORY_DREAMING_QUIET_SECONDS: 'soon' })).toThrow(
			'MEMORY_DREAMING_QUIET_SECONDS must be an integer',
		)
	})
})
