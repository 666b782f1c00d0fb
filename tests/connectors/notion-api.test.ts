import { afterEach, describe, expect, it } from 'bun:test'
import { notion } from '../../connectors/notion/index.ts'
import type { NotionOptions } from '../../connectors/notion/options.ts'
import { RateLimitedError } from '../../core/index.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { block, type NotionEmulator, richText, startNotionEmulator } from '../../testkit/emulators/notion.ts'

/** Notion as its documentation describes it, beyond the happy path: search, query limits, references, the trash. */
let emulator: NotionEmulator
afterEach(() => emulator?.stop())

/** One connection's syncs against the emulator; each run may take other options (a full listing, a walk). */
function connection() {
	const h = syncHarness({})
	const token = emulator.issueTokens().access_token
	h.ctx.accessToken = async () => token
	h.ctx.connectionId = `connection-${crypto.randomUUID()}`
	const run = (options: NotionOptions = {}) =>
		h.run(notion({ apiUrl: emulator.url, requestsPerSecond: 0, ...options }).sync as never)
	return { h, run }
}

const FULL = { reconcileEveryHours: 0 }

describe('Notion connector: search is not exhaustive', () => {
	it('keeps a page a full listing did not return while Notion still has it, and deletes one Notion says is gone', async () => {
		emulator = startNotionEmulator()
		const kept = emulator.addPage({ title: 'Kept', blocks: [block.paragraph('still here')] })
		const trashed = emulator.addPage({ title: 'Trashed', blocks: [block.paragraph('to the trash')] })
		const unshared = emulator.addPage({ title: 'Unshared', blocks: [block.paragraph('no longer shared')] })
		const { h, run } = connection()
		await run()
		expect(h.documents.size).toBe(3)

		emulator.hideFromSearch(kept)
		emulator.hideFromSearch(trashed)
		emulator.trash(trashed)
		emulator.unshare(unshared)
		const first = await run(FULL)
		expect(h.documents.has(kept)).toBe(true)
		expect(h.documents.has(trashed)).toBe(false)
		// One 404 is not enough: the page is deleted when the next run's check answers 404 again.
		expect(h.documents.has(unshared)).toBe(true)
		expect(eventsOf(first, 'delete').map((event) => event.externalId)).toEqual([trashed])
		await run()
		expect([...h.documents.keys()]).toEqual([kept])
	})

	it('finds a page shared after its last edit within one walk of the search listing', async () => {
		emulator = startNotionEmulator()
		const later = emulator.addPage({ title: 'Shared later', blocks: [block.paragraph('old text')], shared: false })
		emulator.addPage({ title: 'Edited after', blocks: [block.paragraph('newer text')] })
		const { h, run } = connection()
		await run()
		expect(h.documents.has(later)).toBe(false)
		emulator.share(later)
		await run({ discoverEveryMinutes: 0 })
		expect(h.documents.get(later)?.content).toContain('old text')
	})
})

describe('Notion connector: data sources', () => {
	it('reads every row past the per-query limit, and a refused data source keeps no other deletion back', async () => {
		emulator = startNotionEmulator({ queryRowLimit: 5 })
		const tasks = emulator.addDatabase('Tasks')
		const rows = Array.from({ length: 12 }, (_, i) =>
			emulator.addRow(tasks, { title: `Task ${i}`, properties: {}, blocks: [block.paragraph(`Task body ${i}`)] }),
		)
		// Rows of a database are often not in search at all (only what is shared directly is guaranteed).
		for (const row of rows) emulator.hideFromSearch(row)
		const other = emulator.addPage({ title: 'Other', blocks: [block.paragraph('elsewhere')] })
		const { h, run } = connection()
		await run(FULL)
		expect(rows.filter((row) => h.documents.has(row))).toHaveLength(12)

		// The data source is refused on the next full listings; a page unshared meanwhile is still deleted.
		emulator.fail(/\/v1\/data_sources\/.*\/query$/, 404, null, 10)
		emulator.unshare(other)
		const refused = await run(FULL)
		expect(eventsOf(refused, 'failure').some((failure) => failure.error.includes(tasks))).toBe(true)
		await run(FULL)
		expect(h.documents.has(other)).toBe(false)
		expect(rows.filter((row) => h.documents.has(row))).toHaveLength(12)
	})

	it('completes relation and people values past the 25 references a page object carries', async () => {
		emulator = startNotionEmulator()
		const people = Array.from({ length: 30 }, (_, i) => ({ object: 'user', id: `u${i}`, name: `Person ${i}` }))
		const related = Array.from({ length: 30 }, (_, i) => ({ id: `related-${i}` }))
		const tasks = emulator.addDatabase('Tasks')
		const row = emulator.addRow(tasks, {
			title: 'Big review',
			properties: {
				Reviewers: { id: 'rev', type: 'people', people },
				Blocks: { id: 'blk', type: 'relation', relation: related },
				Notes: { id: 'nts', type: 'rich_text', rich_text: richText('fine') },
			},
		})
		const { h, run } = connection()
		await run()
		const metadata = h.documents.get(row)!.metadata!
		expect(String(metadata.Reviewers).split(', ')).toHaveLength(30)
		expect(String(metadata.Reviewers)).toContain('Person 29')
		expect(String(metadata.Blocks).split(', ')).toHaveLength(30)
		expect(emulator.calls(/\/properties\/rev$/).length).toBe(1)
		expect(emulator.calls(/\/properties\/nts$/).length).toBe(0)
	})
})

describe('Notion connector: content without a new stamp, and the trash', () => {
	it("reads a page again each refresh period when it shows another object's content", async () => {
		emulator = startNotionEmulator()
		const source = emulator.addPage({
			title: 'Source',
			blocks: [{ type: 'synced_block', synced_block: { synced_from: null }, children: [block.paragraph('v1 text')] }],
		})
		const original = emulator.blockIds(source)[0]!
		const copy = emulator.addPage({
			title: 'Copy',
			blocks: [
				{
					type: 'synced_block',
					has_children: true,
					synced_block: { synced_from: { type: 'block_id', block_id: original } },
				},
			],
		})
		const plain = emulator.addPage({ title: 'Plain', blocks: [block.paragraph('nothing borrowed')] })
		const { h, run } = connection()
		await run(FULL)
		expect(h.documents.get(copy)?.content).toContain('v1 text')
		// The original's children change; neither page's own stamp moves.
		emulator.editBlocksOf(original, [block.paragraph('v2 text')])
		await run(FULL)
		expect(h.documents.get(copy)?.content).toContain('v1 text')
		const before = emulator.calls(new RegExp(`/v1/blocks/${plain}/children`)).length
		await run({ ...FULL, refreshEveryHours: 0 })
		expect(h.documents.get(copy)?.content).toContain('v2 text')
		// A page showing nothing of others is not read again.
		expect(emulator.calls(new RegExp(`/v1/blocks/${plain}/children`)).length).toBe(before)
	})

	it('deletes a page moved to the trash although its stamp did not move, and goes on when the trash search is refused', async () => {
		emulator = startNotionEmulator()
		const old = emulator.addPage({ title: 'Old', blocks: [block.paragraph('old')] })
		emulator.addPage({ title: 'Newer', blocks: [block.paragraph('newer')] })
		const { h, run } = connection()
		await run()
		emulator.trash(old)
		await run()
		expect(h.documents.has(old)).toBe(false)

		const fresh = emulator.addPage({ title: 'Fresh', blocks: [block.paragraph('fresh')] })
		emulator.fail(/\/v1\/search$/, 400, null, 1, (body) => body.filter?.in_trash === true)
		const events = await run()
		expect(h.documents.has(fresh)).toBe(true)
		expect(eventsOf(events, 'failure').map((failure) => failure.error)).toEqual([
			expect.stringContaining('trash could not be searched'),
		])
		expect(eventsOf(events, 'checkpoint')).toHaveLength(1)
	})
})

describe('Notion connector: rate limits and long runs', () => {
	it("never retries before Notion's Retry-After: a longer one than a run waits ends it, to resume then", async () => {
		emulator = startNotionEmulator()
		emulator.addPage({ title: 'Busy workspace', blocks: [block.paragraph('busy')] })
		// The per-workspace limit asks for two minutes; this run waits at most one.
		emulator.fail(/\/children$/, 429, 120, 1)
		const { run } = connection()
		const startedAt = Date.now()
		const error = (await run({ maxRateLimitWaitSeconds: 60 }).catch((e) => e)) as RateLimitedError
		expect(error).toBeInstanceOf(RateLimitedError)
		expect(error.resetAt.getTime()).toBeGreaterThanOrEqual(startedAt + 119_000)
		expect(Date.now() - startedAt).toBeLessThan(20_000)
		// A Retry-After within the wait is waited out in full before the request is sent again.
		emulator.fail(/\/children$/, 429, 2, 1)
		const waited = Date.now()
		await run({ maxRateLimitWaitSeconds: 60 })
		expect(Date.now() - waited).toBeGreaterThanOrEqual(1990)
	}, 30_000)

	it('checkpoints a long listing as it goes, and the next run goes on from there', async () => {
		emulator = startNotionEmulator()
		const ids = Array.from({ length: 260 }, (_, i) => emulator.addPage({ title: `Page ${i}` }))
		// The oldest page's blocks hit a rate limit longer than the run waits.
		emulator.fail(new RegExp(`/v1/blocks/${ids[0]}/children$`), 429, 300, 1)
		const { h, run } = connection()
		await expect(run({ maxRateLimitWaitSeconds: 1 })).rejects.toBeInstanceOf(RateLimitedError)
		expect(typeof h.cursor?.resume).toBe('string')
		expect(h.documents.size).toBeGreaterThanOrEqual(200)
		const searchesBefore = emulator.calls(/\/v1\/search$/).length
		await run()
		expect(h.documents.size).toBe(260)
		expect(h.cursor?.resume).toBeNull()
		// Went on from the search page of its last checkpoint (the second of three, after 200 pages), then searched
		// the trash: three searches, where starting over takes four.
		expect(emulator.calls(/\/v1\/search$/).length - searchesBefore).toBe(3)
	}, 30_000)
})

describe('Notion connector: a failed page read again', () => {
	it('reads one page on its own for the runtime, and never calls a 404 gone there', async () => {
		emulator = startNotionEmulator()
		const page = emulator.addPage({ title: 'Flaky', blocks: [block.paragraph('read at last')] })
		emulator.fail(new RegExp(`/v1/blocks/${page}/children$`), 403, null, 1)
		const { h, run } = connection()
		const events = await run()
		expect(eventsOf(events, 'failure').map((failure) => failure.externalId)).toEqual([page])
		const connector = notion({ apiUrl: emulator.url, requestsPerSecond: 0 })
		const read = await connector.readItem!(h.ctx as never, page)
		expect(read).toMatchObject({ externalId: page, content: expect.stringContaining('read at last') })
		emulator.unshare(page)
		await expect(connector.readItem!(h.ctx as never, page)).rejects.toThrow('Notion refused the page')
		emulator.share(page)
		emulator.trash(page)
		expect(await connector.readItem!(h.ctx as never, page)).toBe('gone')
	})
})
