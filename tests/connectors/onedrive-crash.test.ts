import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crashSync } from '../../testkit/crash-sync.ts'
import { startGraphEmulator } from '../../testkit/emulators/graph.ts'

const FILE_COUNT = 60

describe('OneDrive sync across a crash', () => {
	const emulator = startGraphEmulator({ downloadDelayMs: 40, pageSize: 10 })
	const dataDir = mkdtempSync(join(tmpdir(), 'onedrive-crash-'))
	const crash = crashSync({
		MEMORY_DATA_DIR: dataDir,
		MEMORY_EXTRACTOR: 'none',
		MEMORY_CONNECTORS: 'onedrive',
		MICROSOFT_GRAPH_URL: emulator.url,
		MICROSOFT_LOGIN_URL: emulator.url,
		MICROSOFT_CLIENT_ID: emulator.clientId,
		MICROSOFT_CLIENT_SECRET: emulator.clientSecret,
	})
	afterAll(async () => {
		await crash.stop()
		emulator.stop()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes the first listing after kill -9 from its last page, importing every file once', async () => {
		const drive = emulator.drive('ada')
		for (let i = 0; i < FILE_COUNT; i++)
			drive.addFile(`note-${i}.txt`, `Note ${i}: fact number ${i} about the orchard.`)
		emulator.consentAs('ada')
		await crash.run({ provider: 'onedrive', containerTag: 'orchard', total: FILE_COUNT, importedBeforeKill: 15 })
		// The listing resumed from its last page: files imported before the crash were not downloaded again.
		expect(emulator.downloadCount()).toBeLessThan(FILE_COUNT + 3)
		// It went on from the page it had reached: the drive was listed from its beginning once.
		expect(emulator.log.filter((line) => line === 'GET delta full').length).toBe(1)
	}, 240_000)
})
