import { afterAll, beforeEach, describe, expect, it } from 'bun:test'
import { googleDrive } from '../../connectors/google-drive/index.ts'
import type { GoogleDriveSettings } from '../../connectors/google-drive/options.ts'
import type { SyncEvent } from '../../core/index.ts'
import { eventsOf, type SyncHarness, syncHarness } from '../../testkit/connector-context.ts'
import { type GoogleEmulator, startGoogleEmulator } from '../../testkit/emulators/google.ts'
import { addDriveRoutes, type DriveEmulator, FORM } from '../../testkit/emulators/google-drive.ts'
import { samplePdf } from '../../testkit/sample-files.ts'

/** Drive's listings as Google answers them: incomplete searches, shared drives going away, what cannot be read. */
describe('Google Drive listings', () => {
	let google: GoogleEmulator
	let drive: DriveEmulator
	let h: SyncHarness<GoogleDriveSettings>
	let connector: ReturnType<typeof googleDrive>
	const run = () => h.run(connector.sync)
	const failures = (events: SyncEvent[]) => eventsOf(events, 'failure')
	const listings = () => google.log.filter((line) => line.startsWith('GET /drive/v3/files?'))

	beforeEach(async () => {
		google?.stop()
		google = startGoogleEmulator()
		drive = addDriveRoutes(google)
		connector = googleDrive({ accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url })
		h = syncHarness<GoogleDriveSettings>({ settings: { folders: [] } })
		const token = await google.accessToken('https://www.googleapis.com/auth/drive.readonly')
		h.ctx.accessToken = async () => token
		h.ctx.withToken = async (call) => call(await token)
	})
	afterAll(() => google.stop())

	it("lists My Drive with corpora=user and each shared drive with corpora=drive, so Google's incomplete allDrives search deletes nothing", async () => {
		const team = drive.sharedDrive('Team')
		const shared = drive.sharedFile(team, 'Team plan', 'We hire in spring.')
		const mine = drive.doc('Mine', 'my notes')
		await run()
		expect([...h.documents.keys()].sort()).toEqual([mine.id, shared.id].sort())
		drive.state.incompleteSearch = 'allDrives'
		h.cursor = null
		await run()
		expect([...h.documents.keys()].sort()).toEqual([mine.id, shared.id].sort())
		expect(listings().some((line) => line.includes('corpora=allDrives'))).toBe(false)
		expect(listings().some((line) => line.includes(`corpora=drive`) && line.includes(`driveId=${team}`))).toBe(true)
	})

	it('asks for incompleteSearch and does not reconcile a listing Google says is incomplete', async () => {
		const projects = drive.folder('Projects')
		const kept = drive.doc('Kept', 'in projects', projects)
		h.ctx.settings = { folders: [{ id: projects, name: 'Projects' }] }
		await run()
		expect(h.documents.has(kept.id)).toBe(true)
		drive.state.incompleteSearch = 'any'
		h.cursor = null
		const events = await run()
		expect(listings().every((line) => line.includes('incompleteSearch'))).toBe(true)
		expect(h.documents.has(kept.id)).toBe(true)
		expect(eventsOf(events, 'present').every((event) => (event as { complete?: boolean }).complete !== true)).toBe(true)
	})

	it("deletes a removed shared drive's files (a changeType drive removal names no file)", async () => {
		const team = drive.sharedDrive('Team')
		const shared = drive.sharedFile(team, 'Team plan', 'We hire in spring.')
		const mine = drive.doc('Mine', 'my notes')
		await run()
		expect(h.documents.has(shared.id)).toBe(true)
		drive.removeSharedDrive(team)
		const events = await run()
		expect(failures(events)).toEqual([])
		expect([...h.documents.keys()]).toEqual([mine.id])
	})

	it('lists the whole Drive again a week after its last listing', async () => {
		drive.doc('Mine', 'my notes')
		await run()
		const before = listings().length
		await run()
		expect(listings().length).toBe(before)
		h.cursor = { ...h.cursor!, listedAt: Date.now() - 8 * 24 * 3600_000 }
		await run()
		expect(listings().length).toBeGreaterThan(before)
		expect(Number(h.cursor!.listedAt)).toBeGreaterThan(Date.now() - 60_000)
	})

	it('offers every shared drive in the picker, past the first page of drives.list', async () => {
		const ids: string[] = []
		for (let i = 0; i < 130; i++) ids.push(drive.sharedDrive(`Team ${i}`))
		const top = await connector.resources!.list(h.ctx, { page: 1, perPage: 10, parentId: null })
		const offered = top.resources.filter((resource) => resource.kind === 'sharedDrive').map((resource) => resource.id)
		expect(offered.sort()).toEqual(ids.sort())
	})

	it('exports Drawings as PDF; skips forms, shortcuts and files Google will not let the user download, without a failure', async () => {
		const pdf = await samplePdf('Org chart', ['The org chart of the platform team.'])
		const drawing = drive.drawing('Org chart', pdf)
		const form = drive.googleFile('Survey', FORM)
		const target = drive.doc('Target', 'the shortcut target')
		drive.shortcut('Link to target', target.id)
		const locked = drive.doc('Locked', 'no downloads please')
		drive.forbidDownload(locked.id)
		const events = await run()
		expect(failures(events)).toEqual([])
		expect(h.documents.get(drawing.id)).toMatchObject({
			sourceType: 'google_drawing',
			file: { mimeType: 'application/pdf', name: 'Org chart.pdf' },
		})
		expect(h.documents.has(form.id)).toBe(false)
		expect(h.documents.has(locked.id)).toBe(false)
		expect([...h.documents.keys()].sort()).toEqual([drawing.id, target.id].sort())
		expect(google.log.some((line) => line.includes(`/files/${locked.id}/export`))).toBe(false)
		// Nothing new fails on the next run either.
		drive.update(target.id, { exports: { 'text/markdown': 'changed' } })
		expect(failures(await run())).toEqual([])
	})
})
