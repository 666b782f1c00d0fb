import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { providerUrlOf } from '../../testkit/connections.ts'
import { type GraphEmulator, startGraphEmulator } from '../../testkit/emulators/graph.ts'
import { onedriveHarness } from '../../testkit/onedrive-harness.ts'
import { waitFor } from '../../testkit/wait.ts'

/** Graph as it behaves beyond the happy path: scopes, dropped subscriptions, business drives, lapsed URLs, outages. */
describe('OneDrive connector against Graph (personal account)', () => {
	let emulator: GraphEmulator
	let h: Awaited<ReturnType<typeof onedriveHarness>>
	beforeAll(async () => {
		emulator = startGraphEmulator({ pageSize: 3 })
		h = await onedriveHarness('pglite', emulator)
	}, 120_000)
	afterAll(async () => {
		await h.stop()
		emulator.stop()
	}, 60_000)

	it('asks for the scope a drive subscription needs, and says push is off when it is not granted', async () => {
		emulator.drive('ann').addFile('a.txt', 'Ann answers every letter.')
		const { id, created } = await h.connect('ann')
		expect((await providerUrlOf(h.t, created.authLink)).searchParams.get('scope')).toContain('Files.ReadWrite.All')
		expect(emulator.subscriptions('ann')).toHaveLength(1)

		// The user (or the tenant's admin) did not grant the read-write scope: Graph answers 403, the connection syncs.
		emulator.declineScopes(['Files.ReadWrite.All'])
		try {
			emulator.drive('bea').addFile('b.txt', 'Bea bakes bread.')
			const { synced } = await h.connect('bea')
			expect(synced).toMatchObject({ status: 'active' })
			expect(synced.lastSyncRun).toMatchObject({ status: 'completed', added: 1 })
			expect(emulator.subscriptions('bea')).toEqual([])
			expect(emulator.log).toContain('403 subscription')
		} finally {
			emulator.declineScopes([])
		}
		expect(id).toBeTruthy()
	}, 60_000)

	it('keeps a connection active when the download host refuses a lapsed URL: a fresh one is asked for', async () => {
		const drive = emulator.drive('cal')
		const { id } = await h.connect('cal')
		const file = drive.addFile('c.txt', 'Cal climbs cliffs.')
		emulator.failDownloads(401, 1)
		const after = await h.sync(id, 'cal')
		expect(after).toMatchObject({ status: 'active' })
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', added: 1, failed: 0 })
		expect(emulator.log.filter((line) => line === `GET content ${file}`)).toHaveLength(2)

		// Refused again with the fresh URL (a policy, not an expiry): that one item fails, the connection stays active.
		const blocked = drive.addFile('blocked.txt', 'Blocked by a policy.')
		emulator.failDownloads(403, 2)
		const refused = await h.sync(id, 'cal')
		expect(refused).toMatchObject({ status: 'active' })
		expect(refused.lastSyncRun).toMatchObject({ status: 'completed', failed: 1 })
		const failures = await h.t.json('GET', `/v3/connections/${id}/sync-runs/${refused.lastSyncRun.id}/failures`)
		expect(failures.body.failures.map((failure: { externalId: string }) => failure.externalId)).toEqual([blocked])
		// The next run reads the failed item again, although the delta feed has nothing new about it.
		const retried = await h.sync(id, 'cal')
		expect(retried.lastSyncRun).toMatchObject({ status: 'completed', added: 1, failed: 0 })
		expect(await h.externalIds(id)).toContain(blocked)
	}, 60_000)

	it('waits out 503 and 504 from Graph and 429 from the download host', async () => {
		const drive = emulator.drive('dan')
		const { id } = await h.connect('dan')
		drive.addFile('d.txt', 'Dan draws dragons.')
		emulator.failGraph(/\/delta\?.*token=/, 503, 1, 1)
		emulator.failGraph(/\/content$/, 504, 1, 1)
		emulator.failDownloads(429, 1, 1)
		const after = await h.sync(id, 'dan')
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', added: 1, failed: 0 })
		for (const line of ['503 /v1.0/me/drive/root/delta', '429 download']) {
			expect(emulator.log.some((entry) => entry.startsWith(line))).toBe(true)
		}
	}, 60_000)

	it('deletes what was under a deleted folder even when the relisting it calls for failed once', async () => {
		const drive = emulator.drive('eli')
		const archive = drive.addFolder('Archive')
		drive.addFile('old-1.txt', 'An archived note.', archive)
		drive.addFile('old-2.txt', 'Another archived note.', archive)
		const kept = drive.addFile('kept.txt', 'Kept at the root.')
		const { id } = await h.connect('eli')
		expect(await h.externalIds(id)).toHaveLength(3)
		drive.remove(archive)
		// The incremental pass sees the folder deleted; the whole-drive listing it calls for then fails (Graph's 503,
		// retried three times by the client, answered four times).
		emulator.failGraph(/\/delta\?(?!.*token=)/, 503, 4, 0)
		const failed = await h.sync(id, 'eli')
		expect(failed.lastSyncRun.status).toBe('failed')
		expect(await h.externalIds(id)).toHaveLength(3)
		// The next run lists the drive again before anything else.
		await h.sync(id, 'eli')
		await waitFor(async () => (await h.externalIds(id)).length === 1, 30_000)
		expect(await h.externalIds(id)).toEqual([kept])
	}, 90_000)
})

describe('OneDrive connector against Graph (work or school account)', () => {
	let emulator: GraphEmulator
	let h: Awaited<ReturnType<typeof onedriveHarness>>
	beforeAll(async () => {
		emulator = startGraphEmulator({ account: 'business', pageSize: 3 })
		h = await onedriveHarness('pglite', emulator)
	}, 120_000)
	afterAll(async () => {
		await h.stop()
		emulator.stop()
	}, 60_000)

	it('does not download a file again when only its metadata changed (delta carries no cTag)', async () => {
		const drive = emulator.drive('fay')
		const file = drive.addFile('f.txt', 'Fay files forms.')
		const other = drive.addFile('g.txt', 'Gus guards the gate.')
		const { id } = await h.connect('fay')
		expect(await h.externalIds(id)).toEqual([file, other].sort())
		drive.touch(file)
		const downloads = emulator.downloadCount()
		const quiet = await h.sync(id, 'fay')
		expect(quiet.lastSyncRun).toMatchObject({ status: 'completed', updated: 0, skipped: 1 })
		expect(emulator.downloadCount()).toBe(downloads)

		drive.updateFile(other, 'Gus guards the new gate.')
		const changed = await h.sync(id, 'fay')
		expect(changed.lastSyncRun).toMatchObject({ status: 'completed', updated: 1 })
		expect(emulator.downloadCount()).toBe(downloads + 1)
	}, 60_000)

	it('subscribes with Files.ReadWrite.All, the scope a work or school drive subscription needs', async () => {
		emulator.drive('hal').addFile('h.txt', 'Hal hums.')
		await h.connect('hal')
		expect(emulator.subscriptions('hal')).toHaveLength(1)
	}, 60_000)
})

describe('OneDrive connector without change notifications', () => {
	it('asks only for read access and makes no subscription', async () => {
		const emulator = startGraphEmulator()
		const h = await onedriveHarness('pglite', emulator, { changeNotifications: false })
		try {
			emulator.drive('ivy').addFile('i.txt', 'Ivy irons.')
			const { created, synced } = await h.connect('ivy')
			expect((await providerUrlOf(h.t, created.authLink)).searchParams.get('scope')?.split(' ')).toEqual([
				'offline_access',
				'User.Read',
				'Files.Read.All',
			])
			expect(synced.lastSyncRun).toMatchObject({ status: 'completed', added: 1 })
			expect(emulator.subscriptions('ivy')).toEqual([])
			expect(emulator.log).not.toContain('POST subscription')
			expect(emulator.log).not.toContain('403 subscription')
		} finally {
			await h.stop()
			emulator.stop()
		}
	}, 60_000)
})
