import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crashSync } from '../../testkit/crash-sync.ts'
import { startGoogleEmulator } from '../../testkit/emulators/google.ts'
import { addDriveRoutes } from '../../testkit/emulators/google-drive.ts'

const FILE_COUNT = 80

describe('Google Drive sync across a crash', () => {
	const google = startGoogleEmulator()
	const drive = addDriveRoutes(google, { contentDelayMs: 40 })
	const dataDir = mkdtempSync(join(tmpdir(), 'drive-crash-'))
	const crash = crashSync({
		MEMORY_DATA_DIR: dataDir,
		MEMORY_EXTRACTOR: 'none',
		MEMORY_CONNECTORS: 'google-drive',
		GOOGLE_ACCOUNTS_URL: google.url,
		GOOGLE_OAUTH_URL: google.url,
		GOOGLE_API_URL: google.url,
		GOOGLE_CLIENT_ID: google.clientId,
		GOOGLE_CLIENT_SECRET: google.clientSecret,
	})
	afterAll(async () => {
		await crash.stop()
		google.stop()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes after kill -9, importing every file once and reading files imported before the crash no more', async () => {
		for (let i = 0; i < FILE_COUNT; i++) drive.doc(`Note ${i}`, `# Note ${i}\n\nFact number ${i} about the orchard.`)
		let exportsBefore = 0
		const { before, connection } = await crash.run({
			provider: 'google-drive',
			containerTag: 'orchard',
			total: FILE_COUNT,
			importedBeforeKill: 15,
			killed: () => {
				exportsBefore = drive.downloads()
			},
		})
		// Files imported before the crash were not exported again (at most the one in flight).
		expect(drive.downloads() - exportsBefore).toBeLessThanOrEqual(FILE_COUNT - before + 2)
		expect(connection.status).toBe('active')
	}, 180_000)
})
