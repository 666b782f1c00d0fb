import { afterAll, beforeEach, describe, expect, it } from 'bun:test'
import { googleDrive } from '../../connectors/google-drive/index.ts'
import type { GoogleDriveSettings } from '../../connectors/google-drive/options.ts'
import type { ExternalDocument, SyncEvent } from '../../core/index.ts'
import { eventsOf, type SyncHarness, syncHarness } from '../../testkit/connector-context.ts'
import { type GoogleEmulator, startGoogleEmulator } from '../../testkit/emulators/google.ts'
import { addDriveRoutes, type DriveEmulator, XLSX } from '../../testkit/emulators/google-drive.ts'
import { binaryGarbage, samplePdf, sampleXlsx } from '../../testkit/sample-files.ts'

/** The Drive connector's sync against the emulated Drive, through the real googleapis client, without the service. */
describe('Google Drive sync', () => {
	let google: GoogleEmulator
	let drive: DriveEmulator
	let h: SyncHarness<GoogleDriveSettings>
	let connector: ReturnType<typeof googleDrive>
	const run = () => h.run(connector.sync)
	const doc = (id: string) => h.documents.get(id) as ExternalDocument

	async function fresh(settings: GoogleDriveSettings = { folders: [] }, documentLimit?: number) {
		google?.stop()
		google = startGoogleEmulator()
		drive = addDriveRoutes(google)
		connector = googleDrive({ accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url })
		h = syncHarness<GoogleDriveSettings>({ settings, ...(documentLimit ? { documentLimit } : {}) })
		const token = await google.accessToken('https://www.googleapis.com/auth/drive.readonly')
		h.ctx.accessToken = async () => token
		h.ctx.withToken = async (call) => call(await token)
	}
	beforeEach(() => fresh())
	afterAll(() => google.stop())

	it('exports Docs as Markdown, Sheets as xlsx with every sheet, Slides as text, and downloads other files', async () => {
		const pdf = await samplePdf('Budget', ['The 2027 budget is 4.2 million euros.'])
		const xlsx = sampleXlsx([
			{
				name: 'Q1',
				rows: [
					['Region', 'Sales'],
					['North', 10],
				],
			},
			{
				name: 'Q2',
				rows: [
					['Region', 'Sales'],
					['South', 20],
				],
			},
		])
		const notes = drive.doc('Notes', '# Notes\n\nShip on **Thursday**.')
		const sheet = drive.sheet('Sales', xlsx, 'Region,Sales\nNorth,10')
		const slides = drive.slides('Pitch', 'Slide 1\nOur pitch')
		const file = drive.file('budget.pdf', 'application/pdf', pdf)
		const events = await run()

		expect(doc(notes.id)).toMatchObject({
			title: 'Notes',
			content: '# Notes\n\nShip on **Thursday**.',
			sourceType: 'google_doc',
			url: `https://drive.example/file/d/${notes.id}/view`,
			metadata: { fileId: notes.id, mimeType: 'application/vnd.google-apps.document' },
		})
		expect(doc(sheet.id).sourceType).toBe('google_sheet')
		expect(doc(sheet.id).file).toMatchObject({ name: 'Sales.xlsx', mimeType: XLSX })
		expect(doc(sheet.id).file!.bytes).toEqual(xlsx)
		expect(google.log.some((line) => line.includes('/export?') && line.includes('spreadsheetml'))).toBe(true)
		expect(doc(slides.id)).toMatchObject({ content: 'Slide 1\nOur pitch', sourceType: 'google_slide' })
		expect(doc(file.id).file).toMatchObject({ name: 'budget.pdf', mimeType: 'application/pdf' })
		expect(doc(file.id).file!.bytes).toEqual(pdf)
		expect(doc(file.id).sourceType).toBe('google_drive_file')
		expect(eventsOf(events, 'failure')).toEqual([])
		expect(eventsOf(events, 'present').at(-1)?.externalIds.sort()).toEqual(
			[notes.id, sheet.id, slides.id, file.id].sort(),
		)
	})

	it('takes the changes cursor before listing, then reads only changes: edits, trash and removal', async () => {
		const a = drive.doc('A', 'first')
		const b = drive.doc('B', 'second')
		const c = drive.file('c.txt', 'text/plain', 'third')
		await run()
		expect(google.log.findIndex((l) => l.includes('/changes/startPageToken'))).toBeLessThan(
			google.log.findIndex((l) => l.startsWith('GET /drive/v3/files?')),
		)
		expect(h.cursor).toMatchObject({ listed: true, scope: 'all' })

		drive.update(a.id, { exports: { 'text/markdown': 'first, edited' } })
		drive.trash(b.id)
		drive.remove(c.id)
		const d = drive.doc('D', 'new')
		const listings = google.log.filter((l) => l.startsWith('GET /drive/v3/files?')).length
		const events = await run()
		expect(google.log.filter((l) => l.startsWith('GET /drive/v3/files?')).length).toBe(listings)
		expect(doc(a.id).content).toBe('first, edited')
		expect(h.documents.has(b.id)).toBe(false)
		expect(h.documents.has(c.id)).toBe(false)
		expect(doc(d.id).content).toBe('new')
		expect(
			eventsOf(events, 'delete')
				.map((e) => e.externalId)
				.sort(),
		).toEqual([b.id, c.id].sort())

		// Nothing changed: the feed is empty, nothing is read.
		const downloads = drive.downloads()
		const quiet = await run()
		expect(eventsOf(quiet, 'upsert')).toEqual([])
		expect(drive.downloads()).toBe(downloads)
	})

	it('does not lose a change made while the full listing runs', async () => {
		for (let i = 0; i < 150; i++) drive.doc(`Doc ${i}`, `body ${i}`)
		const first = [...drive.files.values()][0]!
		let edited = false
		// Edit a file already listed, in the middle of the listing (after its first page).
		const events: SyncEvent[] = []
		for await (const event of connector.sync(h.ctx, null)) {
			events.push(event)
			if (event.type === 'checkpoint') h.cursor = event.cursor
			if (!edited && eventsOf(events, 'upsert').length === 120) {
				drive.update(first.id, { exports: { 'text/markdown': 'edited mid-listing' } })
				edited = true
			}
			if (event.type === 'upsert') h.documents.set(event.document.externalId, event.document)
		}
		expect(edited).toBe(true)
		expect(doc(first.id).content).toBe('edited mid-listing')
	})

	it('skips files over 50 MB without downloading them and kinds Drive cannot export, and fails exports over 10 MB alone', async () => {
		const big = drive.file('video.mp4', 'video/mp4', 'tiny here', 'root', 60 * 1024 * 1024)
		const huge = drive.doc('Huge', 'x'.repeat(10 * 1024 * 1024 + 10))
		const form = drive.googleFile('Survey', 'application/vnd.google-apps.form')
		const garbage = drive.file('blob.bin', 'application/octet-stream', binaryGarbage(4096))
		const ok = drive.doc('Fine', 'fits')
		const events = await run()
		expect(
			eventsOf(events, 'unchanged')
				.map((e) => e.externalId)
				.sort(),
		).toEqual([big.id, form.id].sort())
		expect(google.log.some((l) => l.includes(`${big.id}?alt=media`))).toBe(false)
		const failures = eventsOf(events, 'failure')
		expect(failures.map((f) => f.externalId)).toEqual([huge.id])
		expect(failures.find((f) => f.externalId === huge.id)?.error).toContain('10 MB')
		// The malformed file is handed to file ingestion, which refuses its type (tested end to end).
		expect(doc(garbage.id).file?.bytes.length).toBe(4096)
		expect(doc(ok.id).content).toBe('fits')
	})

	it('drops a file deleted between its listing and its export instead of failing it', async () => {
		const first = drive.doc('First', 'stays')
		const second = drive.doc('Second', 'deleted while listing')
		const events: SyncEvent[] = []
		for await (const event of connector.sync(h.ctx, null)) {
			events.push(event)
			if (event.type === 'upsert' && event.document.externalId === first.id) drive.files.delete(second.id)
		}
		expect(eventsOf(events, 'delete').map((e) => e.externalId)).toEqual([second.id])
		expect(eventsOf(events, 'failure')).toEqual([])
	})

	it('waits out a brief rate limit, and ends the run (to be retried from its checkpoint) on a lasting one', async () => {
		const a = drive.doc('A', 'first')
		drive.state.rateLimitedContentReads = 1
		await run()
		expect(doc(a.id).content).toBe('first')
		const b = drive.doc('B', 'second')
		drive.state.rateLimitedContentReads = 100
		const failed = await run().catch((error) => error)
		expect(failed.status).toBe(429)
		expect(h.documents.has(b.id)).toBe(false)
		drive.state.rateLimitedContentReads = 0
		await run()
		expect(doc(b.id).content).toBe('second')
	})

	it('reads shared drives along with My Drive', async () => {
		const team = drive.sharedDrive('Team')
		const shared = drive.sharedFile(team, 'Team plan', 'We hire in spring.')
		await run()
		expect(doc(shared.id)).toMatchObject({ content: 'We hire in spring.', metadata: { driveId: team } })
		drive.update(shared.id, { exports: { 'text/markdown': 'We hire in summer.' } })
		await run()
		expect(doc(shared.id).content).toBe('We hire in summer.')
		expect(google.log.some((l) => l.startsWith('GET /drive/v3/changes?') && l.includes('supportsAllDrives=true'))).toBe(
			true,
		)
	})

	it("syncs only the chosen folders' descendants; a new selection lists again and drops what left it", async () => {
		const projects = drive.folder('Projects')
		const nested = drive.folder('Nested', projects)
		const inside = drive.doc('Inside', 'in projects', projects)
		const deep = drive.doc('Deep', 'nested', nested)
		const outside = drive.doc('Outside', 'elsewhere')
		const archive = drive.folder('Archive')
		const old = drive.doc('Old', 'archived', archive)
		h.ctx.settings = await connector.resources!.configure(h.ctx, [{ id: projects }])
		expect(h.ctx.settings).toEqual({ folders: [{ id: projects, name: 'Projects' }] })
		await run()
		expect([...h.documents.keys()].sort()).toEqual([inside.id, deep.id].sort())

		// Changes outside the chosen folders are ignored; a file moved out is dropped, one moved in is read.
		drive.update(outside.id, { exports: { 'text/markdown': 'still elsewhere' } })
		drive.update(old.id, { parents: [nested] })
		drive.update(inside.id, { parents: [archive] })
		await run()
		expect([...h.documents.keys()].sort()).toEqual([deep.id, old.id].sort())

		h.ctx.settings = await connector.resources!.configure(h.ctx, [{ id: archive }])
		const events = await run()
		expect(eventsOf(events, 'checkpoint')[0]?.cursor).toMatchObject({ listed: false })
		expect([...h.documents.keys()].sort()).toEqual([inside.id])
	})

	it('lists chosen folders again a day later, catching files of a folder moved into them', async () => {
		const chosen = drive.folder('Chosen')
		const elsewhere = drive.folder('Elsewhere')
		const carried = drive.doc('Carried', 'moves with its folder', elsewhere)
		h.ctx.settings = { folders: [{ id: chosen, name: 'Chosen' }] }
		await run()
		expect(h.documents.size).toBe(0)
		// Drive reports the folder's move, not the files inside it.
		drive.update(elsewhere, { parents: [chosen] })
		await run()
		expect(h.documents.has(carried.id)).toBe(false)
		h.cursor = { ...h.cursor!, listedAt: Date.now() - 25 * 3600_000 }
		await run()
		expect(h.documents.has(carried.id)).toBe(true)
		expect(Number(h.cursor!.listedAt)).toBeGreaterThan(Date.now() - 60_000)
	})

	it('lists folders and shared drives as resources and refuses a bad choice with a message', async () => {
		const team = drive.sharedDrive('Team')
		const projects = drive.folder('Projects')
		drive.folder('Nested', projects)
		drive.doc('Not a folder', 'x')
		const top = await connector.resources!.list(h.ctx, { page: 1, perPage: 10, parentId: null })
		expect(top.resources).toEqual([
			expect.objectContaining({ id: team, name: 'Team', kind: 'sharedDrive' }),
			expect.objectContaining({ id: projects, name: 'Projects', kind: 'folder' }),
		])
		const below = await connector.resources!.list(h.ctx, { page: 1, perPage: 10, parentId: projects })
		expect(below.resources.map((r) => r.name)).toEqual(['Nested'])
		const file = drive.doc('Plain', 'x')
		await expect(connector.resources!.configure(h.ctx, [{ id: file.id }])).rejects.toThrow('is not a folder')
		await expect(connector.resources!.configure(h.ctx, [{ id: 'missing123' }])).rejects.toThrow('no folder')
		await expect(connector.resources!.configure(h.ctx, [{ id: "x' or '1'='1" }])).rejects.toThrow('Drive folder id')
		await expect(connector.resources!.list(h.ctx, { page: 1, perPage: 10, parentId: "'" })).rejects.toThrow()
		expect(await connector.resources!.configure(h.ctx, [])).toEqual({ folders: [] })
		expect(await connector.resources!.configure(h.ctx, [{ id: team }])).toEqual({
			folders: [{ id: team, name: 'Team' }],
		})
	})

	it('stops at the documentLimit as the runtime does', async () => {
		await fresh({ folders: [] }, 3)
		for (let i = 0; i < 6; i++) drive.doc(`Doc ${i}`, `body ${i}`)
		await run()
		expect(h.documents.size).toBe(3)
	})
})
