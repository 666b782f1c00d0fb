import { expect } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ServerProcess, spawnServer } from '../process.ts'
import { remoteService } from '../remote-service.ts'
import type { ServiceClient } from '../service.ts'
import type { ConformanceOptions } from './index.ts'

/** Items added for the case, so the sync runs long enough to be killed in its middle. */
const KILL_RESUME_ITEMS = 40
/** How late the emulator answers each item read during the case (milliseconds). */
const ITEM_READ_DELAY_MS = 100
/** Items imported before the server is killed (at least). */
const IMPORTED_BEFORE_KILL = 10

/**
 * kill -9 in the middle of a sync, then a resumed run: a real server process (`server/main.ts`, configured by
 * `options.server()`) on an embedded store connects through the emulator; once some items are imported it is killed
 * with SIGKILL and started again on the same store. The resumed run completes, every item is imported exactly once,
 * and items imported before the kill are not read again.
 */
export async function killAndResume(
	options: ConformanceOptions,
	seed: (items: Record<string, string>) => Promise<void>,
	expected: () => string[],
) {
	const { emulator } = options
	const provider = options.connector().provider
	const added: Record<string, string> = {}
	for (let i = 0; i < KILL_RESUME_ITEMS; i++) added[`crash_${i}`] = `Crash item ${i}: fact number ${i}.`
	await seed(added)
	const faults = emulator.faults()
	if (faults) {
		faults.faults.only = emulator.itemReads
		faults.faults.delayMs = ITEM_READ_DELAY_MS
	}
	const dataDir = mkdtempSync(join(tmpdir(), 'conformance-kill-'))
	const env = {
		MEMORY_DATA_DIR: dataDir,
		MEMORY_EXTRACTOR: 'none',
		MEMORY_CONNECTOR_RETRY_SECONDS: '0',
		MEMORY_CONNECTOR_LEASE_SECONDS: '5',
		MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
		...(options.env?.() ?? {}),
		...(await options.server()),
	}
	const listingsBefore = emulator.fullListings?.() ?? 0
	let server: ServerProcess | null = null
	try {
		server = await spawnServer(env)
		if (!server.firstKey) throw new Error('the server printed no first key: its store was not empty')
		const key = server.firstKey
		const containerTag = 'conformance_kill'
		let client = remoteService(server.url, key)
		const importedCount = async (on: ServiceClient) =>
			(await on.json('POST', `/v3/connections/${provider}/documents`, { containerTags: [containerTag] })).body
				.length as number
		// Answers once the first sync settles, which the kill prevents: its failure then is expected.
		const connecting = options.connect(client, { containerTag }, key).catch(() => null)
		for (let i = 0; i < 1500 && (await importedCount(client)) < IMPORTED_BEFORE_KILL; i++) await Bun.sleep(20)
		const before = await importedCount(client)
		const total = expected().length
		expect(before).toBeGreaterThanOrEqual(IMPORTED_BEFORE_KILL)
		// Equal: the sync ended before the kill, and the emulator's item reads must be slower.
		expect(before).toBeLessThan(total)
		await server.kill('SIGKILL')
		const readsBefore = faults?.counts.requests ?? 0
		await connecting

		server = await spawnServer(env)
		client = remoteService(server.url, key)
		const found = await client.json('POST', `/v3/connections/${provider}/connection`, { containerTags: [containerTag] })
		expect(found.status).toBe(200)
		const id = found.body.id as string
		let connection: any
		for (let i = 0; i < 1800; i++) {
			connection = (await client.json('GET', `/v3/connections/${id}`)).body
			if (connection.lastSyncRun?.status === 'completed') break
			await Bun.sleep(50)
		}
		expect(connection).toMatchObject({ status: 'active', lastSyncRun: { status: 'completed' } })
		const runs = (await client.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns
		expect(runs.some((run: { status: string }) => run.status === 'interrupted')).toBe(true)

		// Every item once: one document per item (customId `<connectionId>:<externalId>`), none twice.
		const listed = await client.json('POST', '/v3/documents/list', { containerTags: [containerTag], limit: 1000 })
		expect(listed.body.pagination.totalItems).toBe(total)
		const ids = (listed.body.memories as { customId: string }[]).map((doc) => doc.customId.slice(id.length + 1))
		expect(ids.sort()).toEqual(expected())
		if (faults && !emulator.revalidatesItems) {
			// Items imported before the kill were not read again (those in flight at the kill may have been).
			const readsAfter = faults.counts.requests - readsBefore
			expect(readsAfter).toBeLessThanOrEqual((emulator.readsPerItem ?? 1) * (total - before + 4))
		}
		// The resumed run went on from its checkpoint instead of listing from the beginning again.
		if (emulator.fullListings) expect(emulator.fullListings() - listingsBefore).toBe(1)
	} finally {
		faults?.reset()
		await server?.kill('SIGKILL')
		rmSync(dataDir, { recursive: true, force: true })
	}
}
