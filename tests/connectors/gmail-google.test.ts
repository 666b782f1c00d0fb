import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { gmail } from '../../connectors/gmail/index.ts'
import type { GmailCursor, GmailSettings } from '../../connectors/gmail/options.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { type GmailEmulator, startGmailEmulator } from '../../testkit/emulators/google-gmail.ts'

/** The Gmail connector's sync against Gmail as Google documents it: drafts, page tokens. */
describe('Gmail sync against Google', () => {
	let emulator: GmailEmulator
	beforeEach(async () => {
		emulator = await startGmailEmulator()
	})
	afterEach(() => emulator.stop())

	async function setup() {
		const connector = gmail({ apiUrl: emulator.url })
		const h = syncHarness<GmailSettings>({ settings: { labels: [], includeAttachments: false } })
		const token = await emulator.accessToken()
		h.ctx.accessToken = async () => token
		h.ctx.withToken = async (call) => call(await token)
		return { h, run: () => h.run<GmailCursor>((ctx, cursor) => connector.sync(ctx, cursor)) }
	}

	it('leaves unsent drafts out of a thread, and a draft saved again does not change the thread', async () => {
		const sent = emulator.deliver({ subject: 'Budget', text: 'Can you send the budget?' })
		const draft = emulator.draft({ subject: 'Re: Budget', text: 'DRAFT-ONLY half-written reply' }, sent.threadId)
		const { h, run } = await setup()
		await run()
		const doc = h.documents.get(sent.threadId)!
		expect(doc.content).not.toContain('DRAFT-ONLY')
		expect(doc.metadata).toMatchObject({ messageCount: 1 })
		const version = doc.version
		// Autosave replaces the draft's message (a new id): the thread is neither read nor changed.
		emulator.saveDraft(draft.id, { subject: 'Re: Budget', text: 'DRAFT-ONLY a longer half-written reply' })
		const reads = emulator.rawReads()
		const events = await run()
		expect(eventsOf(events, 'upsert')).toEqual([])
		expect(h.documents.get(sent.threadId)!.version).toBe(version)
		expect(emulator.rawReads()).toBe(reads)
	})

	it('lists a label again from its first page when Google refuses a persisted page token', async () => {
		const threads = [1, 2, 3, 4, 5].map((n) => emulator.deliver({ subject: `Thread ${n}`, text: `body ${n}` }))
		emulator.setThreadPageSize(2)
		const { h, run } = await setup()
		// A run that stopped after its first page left the page token in the cursor.
		const first = h.run<GmailCursor>(async function* (ctx, cursor) {
			for await (const event of gmail({ apiUrl: emulator.url }).sync(ctx, cursor)) {
				yield event
				if (event.type === 'checkpoint' && event.cursor.fullPage) return
			}
		})
		await first
		expect(h.cursor).toMatchObject({ fullLabel: 0 })
		expect(h.cursor!.fullPage).toBeTruthy()
		emulator.expirePageTokens()
		const events = await run()
		expect(eventsOf(events, 'failure')).toEqual([])
		expect([...h.documents.keys()].sort()).toEqual(threads.map((thread) => thread.threadId).sort())
		expect(h.cursor).toMatchObject({ fullLabel: null, fullPage: null })
		// The next run reads the history as usual.
		emulator.deliver({ subject: 'Thread 6', text: 'body 6' })
		await run()
		expect(h.documents.size).toBe(6)
	})
})

describe('Gmail under Google refusals', () => {
	let emulator: GmailEmulator
	beforeEach(async () => {
		emulator = await startGmailEmulator()
	})
	afterEach(() => emulator.stop())

	it("retries Gmail's 429 with backoff and imports every thread", async () => {
		const threads = [1, 2, 3].map((n) => emulator.deliver({ subject: `Thread ${n}`, text: `body ${n}` }))
		const connector = gmail({ apiUrl: emulator.url })
		const h = syncHarness<GmailSettings>({ settings: { labels: [], includeAttachments: false } })
		const token = await emulator.accessToken()
		h.ctx.accessToken = async () => token
		h.ctx.withToken = async (call) => call(token)
		emulator.state.rateLimitedCalls = 3
		const events = await h.run<GmailCursor>((ctx, cursor) => connector.sync(ctx, cursor))
		expect(eventsOf(events, 'failure')).toEqual([])
		expect([...h.documents.keys()].sort()).toEqual(threads.map((thread) => thread.threadId).sort())
	}, 60_000)

	it('checkpoints an incremental run as it goes, so a stopped one resumes after the threads it read', async () => {
		const connector = gmail({ apiUrl: emulator.url })
		const h = syncHarness<GmailSettings>({ settings: { labels: [], includeAttachments: false } })
		const token = await emulator.accessToken()
		h.ctx.accessToken = async () => token
		h.ctx.withToken = async (call) => call(token)
		const sync = () => h.run<GmailCursor>((ctx, cursor) => connector.sync(ctx, cursor))
		await sync()
		for (let n = 0; n < 60; n++) emulator.deliver({ subject: `New ${n}`, text: `body ${n}` })
		const checkpoints: GmailCursor[] = []
		await h.run<GmailCursor>(async function* (ctx, cursor) {
			for await (const event of connector.sync(ctx, cursor)) {
				yield event
				if (event.type === 'checkpoint') {
					checkpoints.push(event.cursor)
					return
				}
			}
		})
		expect(checkpoints).toHaveLength(1)
		expect(h.documents.size).toBeGreaterThanOrEqual(50)
		expect(h.documents.size).toBeLessThan(60)
		const reads = emulator.rawReads()
		await sync()
		expect(h.documents.size).toBe(60)
		// Only the threads not read before the stop are read again.
		expect(emulator.rawReads() - reads).toBeLessThanOrEqual(60 - 50)
	}, 120_000)
})
