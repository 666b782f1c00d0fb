import { afterAll, beforeEach, describe, expect, it } from 'bun:test'
import { gmail } from '../../connectors/gmail/index.ts'
import type { GmailSettings } from '../../connectors/gmail/options.ts'
import { googleDrive } from '../../connectors/google-drive/index.ts'
import type { GoogleDriveSettings } from '../../connectors/google-drive/options.ts'
import { InsufficientScopeError, RateLimitedError, type SyncEvent } from '../../core/index.ts'
import { eventsOf, type SyncHarness, syncHarness } from '../../testkit/connector-context.ts'
import { type GoogleEmulator, startGoogleEmulator } from '../../testkit/emulators/google.ts'
import { addDriveRoutes, type DriveEmulator, FORM } from '../../testkit/emulators/google-drive.ts'
import { startGmailEmulator } from '../../testkit/emulators/google-gmail.ts'
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

describe('Google Drive and Gmail under Google refusals', () => {
	let google: GoogleEmulator
	let drive: DriveEmulator
	afterAll(() => google.stop())

	async function driveHarness(scope = 'https://www.googleapis.com/auth/drive.readonly') {
		google?.stop()
		google = startGoogleEmulator()
		drive = addDriveRoutes(google)
		const connector = googleDrive({ accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url })
		const h = syncHarness<GoogleDriveSettings>({ settings: { folders: [] } })
		const token = await google.accessToken(scope)
		h.ctx.accessToken = async () => token
		h.ctx.accessToken = async () => token
		h.ctx.withToken = async (call) => call(token)
		return { h, run: () => h.run(connector.sync) }
	}

	it("waits out Drive's 403 userRateLimitExceeded and rateLimitExceeded and imports every file", async () => {
		const { h, run } = await driveHarness()
		const docs = [1, 2, 3].map((n) => drive.doc(`Doc ${n}`, `body ${n}`))
		drive.state.rateLimitKind = '403-user'
		drive.state.rateLimitedCalls = 2
		drive.state.rateLimitedContentReads = 1
		const events = await run()
		expect(eventsOf(events, 'failure')).toEqual([])
		expect([...h.documents.keys()].sort()).toEqual(docs.map((doc) => doc.id).sort())
		drive.state.rateLimitKind = '403-project'
		drive.state.rateLimitedCalls = 1
		drive.update(docs[0]!.id, { exports: { 'text/markdown': 'edited' } })
		await run()
		expect(h.documents.get(docs[0]!.id)?.content).toBe('edited')
	}, 60_000)

	it('ends the run with RateLimitedError on a lasting rate limit, never a file failure', async () => {
		const { h, run } = await driveHarness()
		drive.doc('Doc', 'body')
		drive.state.rateLimitKind = '403-user'
		drive.state.rateLimitedCalls = 1000
		const refused = await run().catch((error: unknown) => error)
		expect(refused).toBeInstanceOf(RateLimitedError)
		expect(h.documents.size).toBe(0)
	}, 120_000)

	it('names the missing drive.readonly permission when the user unticked it (403 insufficientPermissions)', async () => {
		const { run } = await driveHarness('https://www.googleapis.com/auth/userinfo.email')
		drive.doc('Doc', 'body')
		const refused = await run().catch((error: unknown) => error)
		expect(refused).toBeInstanceOf(InsufficientScopeError)
		expect((refused as InsufficientScopeError).missing).toEqual(['https://www.googleapis.com/auth/drive.readonly'])
	})
})

describe('Google Drive and Gmail items read again', () => {
	it('reads one Drive file again for a retry: its document, or gone once deleted', async () => {
		const google = startGoogleEmulator()
		try {
			const drive = addDriveRoutes(google)
			const connector = googleDrive({ accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url })
			const h = syncHarness<GoogleDriveSettings>({ settings: { folders: [] } })
			const token = await google.accessToken('https://www.googleapis.com/auth/drive.readonly')
			h.ctx.accessToken = async () => token
			h.ctx.withToken = async (call) => call(token)
			const doc = drive.doc('Retried', 'read again')
			expect(await connector.readItem!(h.ctx, doc.id)).toMatchObject({ externalId: doc.id, content: 'read again' })
			drive.remove(doc.id)
			expect(await connector.readItem!(h.ctx, doc.id)).toBe('gone')
		} finally {
			google.stop()
		}
	})

	it('reads one Gmail thread again for a retry, and a thread moved to trash is gone', async () => {
		const emulator = await startGmailEmulator()
		try {
			const connector = gmail({ apiUrl: emulator.url })
			const h = syncHarness<GmailSettings>({ settings: { labels: [], includeAttachments: false } })
			const token = await emulator.accessToken()
			h.ctx.accessToken = async () => token
			h.ctx.withToken = async (call) => call(token)
			const sent = emulator.deliver({ subject: 'Retried', text: 'read again' })
			expect(await connector.readItem!(h.ctx, sent.threadId)).toMatchObject({ externalId: sent.threadId })
			emulator.trash(sent.id)
			expect(await connector.readItem!(h.ctx, sent.threadId)).toBe('gone')
		} finally {
			emulator.stop()
		}
	})
})
