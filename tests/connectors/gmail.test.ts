import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { attachmentDocuments } from '../../connectors/gmail/attachments.ts'
import { gmail } from '../../connectors/gmail/index.ts'
import type { GmailCursor, GmailSettings } from '../../connectors/gmail/options.ts'
import { type SyncEvent, statusOf } from '../../core/index.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { buildMessage, type GmailEmulator, startGmailEmulator } from '../../testkit/emulators/google-gmail.ts'
import { samplePdf } from '../../testkit/sample-files.ts'

const T0 = Date.parse('2026-11-02T09:00:00Z')

/** A connector on the emulator and a harness whose token is the emulator's. */
function setup(
	emulator: GmailEmulator,
	settings: Partial<GmailSettings> = {},
	options: { documentLimit?: number; maxMessageBytes?: number } = {},
) {
	const connector = gmail({ apiUrl: emulator.url, maxMessageBytes: options.maxMessageBytes })
	const h = syncHarness<GmailSettings>({
		settings: { labels: [], includeAttachments: false, ...settings },
		documentLimit: options.documentLimit,
	})
	const token = emulator.accessToken()
	h.ctx.accessToken = async () => token
	h.ctx.withToken = async (call) => call(await token)
	return { h, run: () => h.run<GmailCursor>((ctx, cursor) => connector.sync(ctx, cursor)) }
}

const failures = (events: SyncEvent[]) => eventsOf(events, 'failure')
const upserted = (events: SyncEvent[]) => eventsOf(events, 'upsert').map((event) => event.document)

describe('Gmail sync', () => {
	let emulator: GmailEmulator
	beforeAll(async () => {
		emulator = await startGmailEmulator()
	})
	afterAll(() => emulator.stop())

	it('imports one document per thread: messages in order, each with From, To, Date and Subject, quotes not repeated', async () => {
		const first = emulator.deliver(
			{
				from: 'Bob Example <bob@example.com>',
				to: 'Anna Example <anna@example.com>',
				subject: 'Lunch on Thursday',
				date: new Date(T0),
				text: 'Can we have lunch on Thursday at noon?\n\nBob',
			},
			{ at: T0 },
		)
		// Delivered out of order: the thread is still rendered by time.
		emulator.deliver(
			{
				from: 'Bob Example <bob@example.com>',
				subject: 'Re: Lunch on Thursday',
				date: new Date(T0 + 2 * 3_600_000),
				text: 'Great, the Italian place then.\n\nOn Mon, 2 Nov 2026 at 10:30, Anna Example <anna@example.com> wrote:\n> Thursday works for me.\n>\n> On Mon, 2 Nov 2026 at 09:00, Bob Example <bob@example.com> wrote:\n>> Can we have lunch on Thursday at noon?\n',
			},
			{ threadId: first.threadId, at: T0 + 2 * 3_600_000 },
		)
		emulator.deliver(
			{
				from: 'Anna Example <anna@example.com>',
				to: 'Bob Example <bob@example.com>',
				cc: 'Carol <carol@example.com>',
				subject: 'Re: Lunch on Thursday',
				date: new Date(T0 + 3_600_000),
				text: 'Thursday works for me.\n\nOn Mon, 2 Nov 2026 at 09:00, Bob Example <bob@example.com> wrote:\n> Can we have lunch on Thursday at noon?\n> \n> Bob\n',
			},
			{ threadId: first.threadId, at: T0 + 3_600_000, labels: ['SENT'] },
		)
		const { h, run } = setup(emulator)
		const events = await run()
		expect(failures(events)).toEqual([])
		const doc = h.documents.get(first.threadId)!
		expect(doc).toMatchObject({ title: 'Lunch on Thursday', sourceType: 'gmail_thread' })
		expect(doc.metadata).toMatchObject({
			threadId: first.threadId,
			messageCount: 3,
			from: 'Bob Example <bob@example.com>',
		})
		const content = doc.content!
		const order = ['Can we have lunch', 'Thursday works for me', 'the Italian place'].map((text) =>
			content.indexOf(text),
		)
		expect(order).toEqual([...order].sort((a, b) => a - b))
		expect(order[0]).toBeGreaterThan(0)
		expect(content).toContain(
			'From: Anna Example <anna@example.com>\nTo: Bob Example <bob@example.com>\nCc: Carol <carol@example.com>\nDate: 2026-11-02T10:00:00.000Z\nSubject: Re: Lunch on Thursday',
		)
		expect(content).toContain('Date: 2026-11-02T09:00:00.000Z\nSubject: Lunch on Thursday')
		// Each message's words appear once: the replies' quotes are left out.
		expect(content.split('Can we have lunch').length - 1).toBe(1)
		expect(content.split('Thursday works for me').length - 1).toBe(1)
		expect(content).not.toContain('wrote:')
		expect(h.cursor).toMatchObject({ historyId: String(emulator.historyId()), fullLabel: null })
	}, 60_000)

	it('reads HTML-only mail through the readability path (quotes left out, forwards kept), quoted-printable and a non-UTF-8 charset', async () => {
		const local = await startGmailEmulator()
		try {
			const html = local.deliver({
				subject: 'Newsletter',
				html: '<html><body><h1>Garden news</h1><p>The <b>tomatoes</b> are ripe this week.</p><div class="gmail_quote">On Monday Bob wrote:<blockquote>Are the tomatoes ripe?</blockquote></div></body></html>',
			})
			const latin = local.deliver({
				from: '=?iso-8859-1?Q?J=F6rg_M=FCller?= <joerg@example.de>',
				subject: '=?iso-8859-1?Q?Gr=FC=DFe_aus_K=F6ln?=',
				text: 'Schöne Grüße aus Köln, die Straße ist überflutet.',
				charset: 'iso-8859-1',
				encoding: 'quoted-printable',
			})
			const qp = local.deliver({
				subject: 'Long line',
				text: `Prices: ${'café crème '.repeat(12)}= 3 € each.`,
				charset: 'utf-8',
				encoding: 'quoted-printable',
			})
			const outlook = local.deliver({
				subject: 'RE: Meeting',
				html: '<div>Sure, Thursday at ten.</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> Bob<br><b>Sent:</b> Monday</div><div>Can we meet this week?</div>',
			})
			const forward = local.deliver({
				subject: 'Fwd: Budget',
				html: '<div dir="ltr">FYI, see below.<div class="gmail_quote"><div class="gmail_attr">---------- Forwarded message ---------<br>From: Bob</div><div>The budget is 10k for 2027.</div></div></div>',
			})
			const { h, run } = setup(local)
			expect(failures(await run())).toEqual([])
			expect(h.documents.get(outlook.threadId)!.content).toContain('Sure, Thursday at ten.')
			expect(h.documents.get(outlook.threadId)!.content).not.toContain('Can we meet this week?')
			// A forward is new to the thread: what it forwards is kept.
			expect(h.documents.get(forward.threadId)!.content).toContain('The budget is 10k for 2027.')
			const htmlDoc = h.documents.get(html.threadId)!.content!
			expect(htmlDoc).toContain('tomatoes')
			expect(htmlDoc).toContain('are ripe this week')
			expect(htmlDoc).not.toContain('<b>')
			expect(htmlDoc).not.toContain('Are the tomatoes ripe?')
			const latinDoc = h.documents.get(latin.threadId)!
			expect(latinDoc.title).toBe('Grüße aus Köln')
			expect(latinDoc.content).toContain('Schöne Grüße aus Köln, die Straße ist überflutet.')
			expect(latinDoc.content).toContain('From: Jörg Müller <joerg@example.de>')
			expect(h.documents.get(qp.threadId)!.content).toContain(`Prices: ${'café crème '.repeat(12)}= 3 € each.`)
		} finally {
			local.stop()
		}
	}, 60_000)

	it('imports INBOX and the chosen labels only; choosing another label lists everything again', async () => {
		const local = await startGmailEmulator()
		try {
			const receipts = local.addLabel('Receipts')
			const inbox = local.deliver({ subject: 'In the inbox', text: 'Inbox mail.' })
			const labelled = local.deliver({ subject: 'Receipt', text: 'Your receipt.' }, { labels: [receipts] })
			const other = local.deliver({ subject: 'Sent only', text: 'Sent mail.' }, { labels: ['SENT'] })
			const { h, run } = setup(local)
			await run()
			expect([...h.documents.keys()]).toEqual([inbox.threadId])
			h.ctx.settings = { ...h.ctx.settings, labels: [receipts] }
			const events = await run()
			expect(local.log).toContain('GET /threads')
			expect(eventsOf(events, 'unchanged').map((event) => event.externalId)).toEqual([inbox.threadId])
			expect([...h.documents.keys()].sort()).toEqual([inbox.threadId, labelled.threadId].sort())
			expect(h.documents.has(other.threadId)).toBe(false)
			// The label's resources and their choice.
			const connector = gmail({ apiUrl: local.url })
			const listed = await connector.resources!.list(h.ctx, { page: 1, perPage: 50, parentId: null })
			expect(listed.resources).toContainEqual({ id: receipts, name: 'Receipts', type: 'user', selected: true })
			expect(listed.resources.some((label) => label.id === 'TRASH')).toBe(false)
			const settings = await connector.resources!.configure(h.ctx, [
				{ id: 'STARRED' },
				{ id: 'INBOX', includeAttachments: true },
			])
			expect(settings).toEqual({ labels: ['STARRED'], includeAttachments: true })
			await expect(connector.resources!.configure(h.ctx, [{ id: 'TRASH' }])).rejects.toThrow('cannot be imported')
			await expect(connector.resources!.configure(h.ctx, [{ name: 'x' }])).rejects.toThrow('resources[0].id')
		} finally {
			local.stop()
		}
	}, 60_000)

	it('syncs incrementally from the history id: new threads, replies, trash and deletions', async () => {
		const local = await startGmailEmulator()
		try {
			const a = local.deliver({ subject: 'Plan', text: 'First draft of the plan.' })
			const b = local.deliver({ subject: 'Budget', text: 'The budget is 10k.' })
			const c = local.deliver({ subject: 'Party', text: 'Party on Friday.' })
			const { h, run } = setup(local)
			await run()
			expect(h.documents.size).toBe(3)

			const reply = local.deliver({ subject: 'Re: Plan', text: 'Second draft attached.' }, { threadId: a.threadId })
			const d = local.deliver({ subject: 'Trip', text: 'The trip is in May.' })
			local.trash(b.id)
			local.remove(c.id)
			const before = local.log.length
			const events = await run()
			const calls = local.log.slice(before)
			expect(calls.some((line) => line.startsWith('GET /history'))).toBe(true)
			expect(calls.some((line) => line.startsWith('GET /threads?') || line === 'GET /threads')).toBe(false)
			expect(
				upserted(events)
					.map((doc) => doc.externalId)
					.sort(),
			).toEqual([a.threadId, d.threadId].sort())
			expect(h.documents.get(a.threadId)!.content).toContain('Second draft attached.')
			expect(h.documents.has(b.threadId)).toBe(false)
			expect(h.documents.has(c.threadId)).toBe(false)
			expect(
				eventsOf(events, 'delete')
					.map((event) => event.externalId)
					.sort(),
			).toEqual([b.threadId, c.threadId].sort())

			// One message of two moved to trash: the thread is rendered again without it.
			local.trash(reply.id)
			await run()
			expect(h.documents.get(a.threadId)!.content).not.toContain('Second draft')
			expect(h.documents.get(a.threadId)!.content).toContain('First draft of the plan.')

			// A label change (read, starred) is not a change of the thread's text: nothing is read again.
			local.relabel(d.id, ['STARRED'], ['UNREAD'])
			const reads = local.rawReads()
			const quiet = await run()
			expect(upserted(quiet)).toEqual([])
			expect(local.rawReads()).toBe(reads)
		} finally {
			local.stop()
		}
	}, 60_000)

	it('lists everything again when Google no longer has the history since the cursor (404)', async () => {
		const local = await startGmailEmulator()
		try {
			const kept = local.deliver({ subject: 'Kept', text: 'Still here.' })
			const gone = local.deliver({ subject: 'Gone', text: 'Deleted while the history was too old.' })
			const { h, run } = setup(local)
			await run()
			local.remove(gone.id)
			const fresh = local.deliver({ subject: 'Fresh', text: 'Arrived meanwhile.' })
			local.expireHistory()
			const events = await run()
			expect(local.log).toContain('GET /profile')
			expect([...h.documents.keys()].sort()).toEqual([kept.threadId, fresh.threadId].sort())
			expect(eventsOf(events, 'present')).toContainEqual({
				type: 'present',
				externalIds: expect.arrayContaining([kept.threadId]),
				complete: true,
			})
			expect(eventsOf(events, 'unchanged').map((event) => event.externalId)).toContain(kept.threadId)
			expect(h.cursor).toMatchObject({ historyId: String(local.historyId()), fullLabel: null })
			// From there on, incremental again.
			local.deliver({ subject: 'Later', text: 'Incremental again.' })
			const before = local.log.length
			await run()
			expect(local.log.slice(before).some((line) => line.startsWith('GET /history'))).toBe(true)
		} finally {
			local.stop()
		}
	}, 60_000)

	it('fails only the thread of a malformed message, an unknown charset or a message over the size cap', async () => {
		const local = await startGmailEmulator()
		try {
			const good = local.deliver({ subject: 'Good', text: 'A normal message.' })
			const garbage = local.deliver({ raw: '\u0000\u0001binary garbage with no headers at all' })
			const noBoundary = local.deliver({
				raw: 'From: a@example.com\r\nSubject: broken\r\nContent-Type: multipart/mixed\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nhi\r\n--x--\r\n',
			})
			const klingon = local.deliver({ subject: 'Odd', text: 'Qapla', charset: 'x-klingon-tlh' })
			const huge = local.deliver({ subject: 'Huge', text: 'x'.repeat(300_000) })
			const { h, run } = setup(local, {}, { maxMessageBytes: 200_000 })
			const events = await run()
			expect([...h.documents.keys()]).toEqual([good.threadId])
			const failed = Object.fromEntries(failures(events).map((failure) => [failure.externalId, failure.error]))
			expect(failed[garbage.threadId]).toContain('malformed MIME')
			expect(failed[noBoundary.threadId]).toContain('no boundary')
			expect(failed[klingon.threadId]).toContain('unknown charset "x-klingon-tlh"')
			expect(failed[huge.threadId]).toContain('GMAIL_MESSAGE_TOO_LARGE')
			expect(h.cursor).toMatchObject({ fullLabel: null })
		} finally {
			local.stop()
		}
	}, 60_000)

	it('imports supported attachments as their own items when asked, and removes them with their thread', async () => {
		const local = await startGmailEmulator()
		try {
			const pdf = await samplePdf('Invoice', ['Invoice 2026-117', 'Total due: 420 EUR'])
			const mail = local.deliver({
				subject: 'Invoice',
				text: 'Please find the invoice attached.',
				attachments: [
					{ name: 'invoice.pdf', mimeType: 'application/pdf', bytes: pdf },
					{ name: 'archive.zip', mimeType: 'application/zip', bytes: 'PK not really' },
				],
			})
			const off = setup(local)
			await off.run()
			expect([...off.h.documents.keys()]).toEqual([mail.threadId])
			expect(off.h.documents.get(mail.threadId)!.metadata).toMatchObject({
				attachmentCount: 2,
				attachmentNames: 'invoice.pdf, archive.zip',
			})

			const { h, run } = setup(local, { includeAttachments: true })
			await run()
			const id = `${mail.threadId}:${mail.id}:0`
			expect([...h.documents.keys()].sort()).toEqual([mail.threadId, id].sort())
			const attachment = h.documents.get(id)!
			expect(attachment.file?.name).toBe('invoice.pdf')
			expect(attachment.file?.mimeType).toBe('application/pdf')
			expect(Buffer.from(attachment.file!.bytes).equals(Buffer.from(pdf))).toBe(true)
			expect(attachment.content).toBeUndefined()

			local.trash(mail.id)
			await run()
			expect(h.documents.size).toBe(0)
		} finally {
			local.stop()
		}
	}, 60_000)

	it("asks Google for read-only mail and the account's email, nothing more", () => {
		const { auth } = gmail()
		expect(auth.type === 'oauth2' && auth.scopes).toEqual([
			'https://www.googleapis.com/auth/gmail.readonly',
			'https://www.googleapis.com/auth/userinfo.email',
		])
	})

	it('takes an attachment as file ingestion does: by any media type it reads, or by its name', () => {
		const attachment = (name: string, mimeType: string) => ({ name, mimeType, bytes: new Uint8Array([1]) })
		const decoded = {
			from: 'bob@example.com',
			to: '',
			cc: '',
			date: null,
			subject: 'Files',
			text: 'Attached.',
			html: null,
			attachments: [
				attachment('figures', 'application/csv'),
				attachment('scan', 'image/x-ms-bmp'),
				attachment('notes.md', 'application/octet-stream'),
				attachment('invite.ics', 'text/calendar'),
				attachment('archive.zip', 'application/zip'),
			],
		}
		const { attachments, failures } = attachmentDocuments(
			't1',
			[{ id: 'm1', internalDate: T0, decoded, body: 'Attached.' }],
			1024,
		)
		expect(failures).toEqual([])
		expect(attachments.map((document) => [document.externalId, document.title])).toEqual([
			['t1:m1:0', 'figures'],
			['t1:m1:1', 'scan'],
			['t1:m1:2', 'notes.md'],
		])
	})

	it('stops at documentLimit and hands a refused token (401) to the runtime', async () => {
		const local = await startGmailEmulator()
		try {
			for (let i = 0; i < 5; i++) local.deliver({ subject: `Note ${i}`, text: `Note number ${i}.` })
			const limited = setup(local, {}, { documentLimit: 2 })
			await limited.run()
			expect(limited.h.documents.size).toBe(2)

			const revoked = setup(local)
			local.revokeAfterMessageReads(1)
			// Awaited before asserting: expect().rejects waits without delivering the worker thread's answers.
			const refused = await revoked.run().catch((error: unknown) => error)
			expect(statusOf(refused)).toBe(401)
			expect(revoked.h.documents.size).toBe(1)
		} finally {
			local.stop()
		}
	}, 60_000)

	it('resumes an interrupted full listing from its page, and renders a raw message built elsewhere', async () => {
		const local = await startGmailEmulator()
		try {
			for (let i = 0; i < 7; i++) local.deliver({ subject: `Page item ${i}`, text: `Item ${i}.` })
			local.setThreadPageSize(3)
			const { h, run } = setup(local)
			// Stop after the first page's checkpoint, as a crash would.
			const connector = gmail({ apiUrl: local.url })
			for await (const event of connector.sync(h.ctx, null)) {
				if (event.type === 'upsert') h.documents.set(event.document.externalId, event.document)
				if (event.type === 'checkpoint') {
					h.cursor = event.cursor
					break
				}
			}
			expect(h.cursor).toMatchObject({ fullLabel: 0, fullPage: expect.stringMatching(/:3$/) })
			expect(h.documents.size).toBe(3)
			const events = await run()
			expect(upserted(events)).toHaveLength(4)
			expect(h.documents.size).toBe(7)
			// A resumed listing saw only its rest: it does not reconcile deletions.
			expect(eventsOf(events, 'present').filter((event) => event.prefix === undefined)).toEqual([])
			expect(buildMessage({ subject: 'x', text: 'y' })).toContain('Subject: x')
		} finally {
			local.stop()
		}
	}, 60_000)
})
