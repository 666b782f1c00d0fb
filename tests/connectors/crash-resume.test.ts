import { afterAll, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crashSync } from '../../testkit/crash-sync.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startGithubEmulator } from '../../testkit/emulators/github.ts'
import { createTestDatabase } from '../../testkit/postgres.ts'

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
	const crash = crashSync(env)
	let dropDatabase = async () => {}
	afterAll(async () => {
		await crash.stop()
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
		let readsBeforeCrash = 0
		const { before } = await crash.run({
			provider: 'github',
			containerTag: 'garden',
			total: FILE_COUNT,
			importedBeforeKill: 15,
			afterAuthorize: async (call, id) => {
				const configured = await call(`/v3/connections/${id}/configure`, {
					method: 'POST',
					body: { resources: [{ full_name: 'octo/notes' }] },
				})
				expect(configured.status).toBe(200)
			},
			killed: () => {
				readsBeforeCrash = emulator.blobReads()
			},
		})
		// Files imported before the crash were not read again: only those it had not imported were read after it.
		expect(emulator.blobReads() - readsBeforeCrash).toBeLessThanOrEqual(FILE_COUNT - before)
	}, 180_000)
})
