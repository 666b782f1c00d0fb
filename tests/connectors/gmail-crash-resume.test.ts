import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crashSync } from '../../testkit/crash-sync.ts'
import { type GmailEmulator, startGmailEmulator } from '../../testkit/emulators/google-gmail.ts'

const THREAD_COUNT = 60

describe('Gmail sync across a crash', () => {
	let emulator: GmailEmulator
	let crash: ReturnType<typeof crashSync> | null = null
	const dataDir = mkdtempSync(join(tmpdir(), 'gmail-crash-'))
	afterAll(async () => {
		await crash?.stop()
		emulator?.stop()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes after kill -9 from its last page, importing every thread once', async () => {
		emulator = await startGmailEmulator({ messageDelayMs: 40 })
		emulator.setThreadPageSize(10)
		for (let i = 0; i < THREAD_COUNT; i++) {
			emulator.deliver({ subject: `Garden note ${i}`, text: `Fact number ${i} about the garden.` })
		}
		crash = crashSync({
			MEMORY_DATA_DIR: dataDir,
			MEMORY_EXTRACTOR: 'none',
			MEMORY_CONNECTORS: 'gmail',
			GOOGLE_ACCOUNTS_URL: emulator.url,
			GOOGLE_OAUTH_URL: emulator.url,
			GOOGLE_API_URL: emulator.url,
			GOOGLE_CLIENT_ID: emulator.google.clientId,
			GOOGLE_CLIENT_SECRET: emulator.google.clientSecret,
		})
		await crash.run({ provider: 'gmail', containerTag: 'garden', total: THREAD_COUNT, importedBeforeKill: 15 })
		// Threads imported before the crash were not read again (their messages had not changed).
		expect(emulator.rawReads()).toBeLessThan(THREAD_COUNT + 5)
	}, 180_000)
})
