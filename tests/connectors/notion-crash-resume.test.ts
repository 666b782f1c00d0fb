import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crashSync } from '../../testkit/crash-sync.ts'
import { block, startNotionEmulator } from '../../testkit/emulators/notion.ts'

const PAGE_COUNT = 60

describe('Notion sync across a crash', () => {
	const emulator = startNotionEmulator({ blockDelayMs: 60 })
	const dataDir = mkdtempSync(join(tmpdir(), 'notion-crash-'))
	const crash = crashSync({
		MEMORY_DATA_DIR: dataDir,
		MEMORY_EXTRACTOR: 'none',
		MEMORY_CONNECTORS: 'notion',
		NOTION_API_URL: emulator.url,
		NOTION_CLIENT_ID: emulator.clientId,
		NOTION_CLIENT_SECRET: emulator.clientSecret,
		NOTION_REQUESTS_PER_SECOND: '0',
	})
	afterAll(async () => {
		await crash.stop()
		emulator.stop()
		rmSync(dataDir, { recursive: true, force: true })
	})

	it('resumes after kill -9, reading only the pages not imported yet, and imports every page once', async () => {
		for (let i = 0; i < PAGE_COUNT; i++) {
			emulator.addPage({ title: `Garden note ${i}`, blocks: [block.paragraph(`Fact number ${i} about the garden.`)] })
		}
		let readsBefore = 0
		const { before } = await crash.run({
			provider: 'notion',
			containerTag: 'garden',
			total: PAGE_COUNT,
			importedBeforeKill: 12,
			killed: () => {
				readsBefore = emulator.calls(/\/children$/).length
			},
		})
		// Pages imported before the crash were not read again (the one in flight may have been).
		expect(emulator.calls(/\/children$/).length - readsBefore).toBeLessThanOrEqual(PAGE_COUNT - before + 2)
	}, 300_000)
})
