import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { folderConnector } from '@memory-service/example-folder-connector'
import { syncSettled } from '../../testkit/connections.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describe('organization reset', () => {
	const folder = mkdtempSync(join(tmpdir(), 'reset-folder-'))
	let t: TestService
	let other: string
	beforeAll(async () => {
		writeFileSync(join(folder, 'note.md'), 'The greenhouse needs a new door.')
		t = await startTestService('pglite', { extractor: null, plugins: [folderConnector({ root: folder })] })
		other = await t.createKey('other')
	})
	afterAll(async () => {
		await t.stop()
		rmSync(folder, { recursive: true, force: true })
	})

	it("deletes the organization's connections with its content, counts them, and leaves other organizations alone", async () => {
		const since = new Date().toISOString()
		const mine = await t.json('POST', '/v3/connections/folder', { containerTags: ['notes'] })
		expect(mine.status).toBe(200)
		await syncSettled(t, mine.body.id, since)
		const theirs = await t.json('POST', '/v3/connections/folder', { containerTags: ['notes'] }, other)
		expect(theirs.status).toBe(200)

		const refused = await t.json('POST', '/v3/settings/reset', { confirmation: 'wrong' })
		expect(refused.status).toBe(400)
		expect((await t.json('POST', '/v3/connections/list', {})).body).toHaveLength(1)

		const reset = await t.json('POST', '/v3/settings/reset', { confirmation: 'default' })
		expect(reset.status).toBe(200)
		expect(reset.body.deletedConnections).toBe(1)
		expect((await t.json('POST', '/v3/connections/list', {})).body).toEqual([])
		expect((await t.json('GET', `/v3/connections/${mine.body.id}`)).status).toBe(404)
		expect((await t.json('POST', '/v3/connections/list', {}, other)).body).toHaveLength(1)
	})
})
