import { afterEach, describe, expect, it } from 'bun:test'
import { notion } from '../../connectors/notion/index.ts'
import type { NotionOptions } from '../../connectors/notion/options.ts'
import { importedVersion, type NotionPage } from '../../connectors/notion/page.ts'
import { ConnectorAuthError, RateLimitedError } from '../../core/index.ts'
import { connectorsFromEnv } from '../../server/connectors-from-env.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { block, type NotionEmulator, richText, startNotionEmulator } from '../../testkit/emulators/notion.ts'

let emulator: NotionEmulator
afterEach(() => emulator?.stop())

/** The connector's sync against the emulator, with a token of its own (no service). */
function harness(options: NotionOptions = {}, token = emulator.issueTokens().access_token) {
	const connector = notion({ apiUrl: emulator.url, requestsPerSecond: 0, ...options })
	const h = syncHarness({})
	h.ctx.accessToken = async () => token
	h.ctx.connectionId = `connection-${crypto.randomUUID()}`
	return { h, run: () => h.run(connector.sync as never) }
}

describe('Notion connector: pages as Markdown', () => {
	it('renders every block kind, nested, across paginated listings', async () => {
		emulator = startNotionEmulator()
		const many = Array.from({ length: 130 }, (_, i) => block.bullet(`Nested item ${i}`))
		const id = emulator.addPage({
			title: 'Handbook',
			blocks: [
				block.heading(1, 'Welcome'),
				block.paragraph([
					{ text: 'Ship on ' },
					{ text: 'Thursdays', bold: true },
					{ text: ' see ' },
					{ text: 'docs', href: 'https://docs.example' },
				]),
				block.heading(2, 'Lists'),
				block.bullet('Coffee', [block.bullet('Oat milk', [block.bullet('Barista edition')])]),
				block.bullet('Tea'),
				block.numbered('First'),
				block.numbered('Second', [block.numbered('Second point one')]),
				block.todo('Water the plants', true),
				block.todo('Buy soil', false),
				block.toggle('Details', [block.paragraph('Hidden inside the toggle')]),
				block.heading(3, 'Table'),
				block.table([
					['Name', 'Role'],
					['Ada', 'Engineer'],
				]),
				block.code('const answer = 42', 'typescript'),
				block.callout('Remember the keys', '💡'),
				block.quote('Simplicity is prerequisite for reliability'),
				block.divider(),
				block.childPage('Sub page'),
				block.childDatabase('Tasks'),
				{ type: 'hologram', hologram: { rich_text: richText('Future block text') } },
				{ type: 'mystery', mystery: {} },
				block.paragraph('Long list follows', many),
				...Array.from({ length: 120 }, (_, i) => block.paragraph(`Line ${i}`)),
			],
		})
		const { h, run } = harness()
		await run()
		const text = h.documents.get(id)!.content!
		for (const expected of [
			'# Handbook',
			'# Welcome',
			'Ship on **Thursdays** see [docs](https://docs.example)',
			'## Lists',
			'- Coffee\n  - Oat milk\n    - Barista edition\n- Tea',
			'1. First\n2. Second\n   1. Second point one',
			'- [x] Water the plants\n- [ ] Buy soil',
			'▸ Details\n  Hidden inside the toggle',
			'### Table',
			'| Name | Role |\n| --- | --- |\n| Ada | Engineer |',
			'```typescript\nconst answer = 42\n```',
			'> 💡 Remember the keys',
			'> Simplicity is prerequisite for reliability',
			'\n---\n',
			'[Sub page](https://www.notion.so/',
			'[Tasks](https://www.notion.so/',
			'Future block text',
			'Nested item 129',
			'Line 0',
			'Line 119',
		]) {
			expect(text).toContain(expected)
		}
		expect(text).not.toContain('mystery')
		// Over 100 blocks at the top and under one block: each listing was read page by page.
		expect(emulator.calls(/\/v1\/blocks\/.*\/children/).length).toBeGreaterThanOrEqual(5)
	})

	it('marks a page cut when the block budget ends before a nested listing, and stops reading there', async () => {
		emulator = startNotionEmulator()
		const cut = emulator.addPage({
			title: 'Cut',
			blocks: [block.paragraph('First'), block.toggle('Second', [block.paragraph('Hidden')])],
		})
		const whole = emulator.addPage({ title: 'Whole', blocks: [block.paragraph('Only')] })
		const { h, run } = harness({ maxBlocksPerPage: 2 })
		await run()
		const document = h.documents.get(cut)!
		expect(document.content).toContain('Second')
		expect(document.content).not.toContain('Hidden')
		expect(document.metadata).toMatchObject({ truncated: true })
		expect(h.documents.get(whole)!.metadata).not.toHaveProperty('truncated')
		// The budget was spent: the toggle's children were not listed.
		expect(emulator.calls(/\/v1\/blocks\/.*\/children/).length).toBe(2)
	})

	it('imports database rows with their properties as flat metadata', async () => {
		emulator = startNotionEmulator()
		const tasks = emulator.addDatabase('Tasks')
		const row = emulator.addRow(tasks, {
			title: 'Launch the garden app',
			properties: {
				Status: { type: 'status', status: { name: 'In progress' } },
				Priority: { type: 'select', select: { name: 'High' } },
				Tags: { type: 'multi_select', multi_select: [{ name: 'mobile' }, { name: 'launch' }] },
				Estimate: { type: 'number', number: 8 },
				Done: { type: 'checkbox', checkbox: false },
				Due: { type: 'date', date: { start: '2026-12-01', end: '2026-12-03' } },
				Owner: { type: 'people', people: [{ object: 'user', id: 'u1', name: 'Ada' }] },
				Notes: { type: 'rich_text', rich_text: richText('Needs ', { text: 'review', bold: true }) },
				Link: { type: 'url', url: 'https://garden.example' },
				Score: { type: 'formula', formula: { type: 'number', number: 0.75 } },
				Empty: { type: 'select', select: null },
				Broken: { type: 'rollup', rollup: 'not an object' },
				url: { type: 'rich_text', rich_text: richText('a property named url') },
			},
			blocks: [block.paragraph('The launch checklist.')],
		})
		const { h, run } = harness()
		await run()
		const document = h.documents.get(row)!
		expect(document.title).toBe('Launch the garden app')
		expect(document.sourceType).toBe('notion_database_row')
		expect(document.metadata).toMatchObject({
			Status: 'In progress',
			Priority: 'High',
			Tags: 'mobile, launch',
			Estimate: 8,
			Done: false,
			Due: '2026-12-01',
			'Due end': '2026-12-03',
			Owner: 'Ada',
			Notes: 'Needs review',
			Link: 'https://garden.example',
			Score: 0.75,
			'property:url': 'a property named url',
			database: 'Tasks',
			dataSourceId: tasks,
			notionId: row,
		})
		expect(document.metadata).not.toHaveProperty('Empty')
		expect(document.metadata).not.toHaveProperty('Broken')
		expect(document.content).toContain('Status: In progress')
		expect(document.content).toContain('The launch checklist.')
		// The row was listed by search and by its data source, and imported once.
		expect(emulator.calls(/\/v1\/data_sources\/.*\/query/).length).toBe(1)
		expect(emulator.calls(new RegExp(`/v1/blocks/${row}/children`)).length).toBe(1)
	})
})

describe('Notion connector: incremental sync and deletions', () => {
	it('reads only what was edited since the newest stamp seen', async () => {
		emulator = startNotionEmulator()
		const ids = Array.from({ length: 5 }, (_, i) =>
			emulator.addPage({ title: `Page ${i}`, blocks: [block.paragraph(`Body ${i}`)] }),
		)
		const { h, run } = harness({ reconcileEveryHours: 24 })
		await run()
		expect(h.documents.size).toBe(5)
		expect(typeof h.cursor?.editedSince).toBe('string')
		expect(typeof h.cursor?.listedAt).toBe('string')

		emulator.editPage(ids[1]!, { blocks: [block.paragraph('Body 1, rewritten')] })
		const fresh = emulator.addPage({ title: 'Page new', blocks: [block.paragraph('New body')] })
		const before = emulator.log.length
		const events = await run()
		const reads = emulator.log.slice(before).filter((entry) => entry.path.includes('/children'))
		expect(reads.length).toBe(2)
		expect(
			eventsOf(events, 'upsert')
				.map((event) => event.document.externalId)
				.sort(),
		).toEqual([ids[1]!, fresh].sort())
		expect(h.documents.get(ids[1]!)!.content).toContain('rewritten')
		// No data source queried, no full listing: only the newest search results up to the stamp.
		expect(eventsOf(events, 'present')).toHaveLength(0)

		const quiet = await run()
		expect(eventsOf(quiet, 'upsert')).toHaveLength(0)
	})

	it('reads a page again while its minute is open, since Notion stamps edits to the minute', () => {
		const now = Date.parse('2026-11-25T10:00:30.000Z')
		const page = (stamp: string) => ({ id: 'p', last_edited_time: stamp }) as NotionPage
		expect(importedVersion(page('2026-11-25T10:00:00.000Z'), now)).toBe('2026-11-25T10:00:00.000Z~open')
		expect(importedVersion(page('2026-11-25T09:57:00.000Z'), now)).toBe('2026-11-25T09:57:00.000Z')
	})

	it('reads a page edited twice within one minute again, although its stamp did not change', async () => {
		emulator = startNotionEmulator({ realClock: true })
		const id = emulator.addPage({ title: 'Draft', blocks: [block.paragraph('First words')] })
		const { h, run } = harness({ reconcileEveryHours: 24 })
		await run()
		expect(h.documents.get(id)!.version).toEndWith('~open')
		emulator.editPageSameMinute(id, [block.paragraph('Second thoughts')])
		await run()
		expect(h.documents.get(id)!.content).toContain('Second thoughts')
	})

	it('deletes pages moved to the trash at once, and pages no longer shared once Notion confirms it twice', async () => {
		emulator = startNotionEmulator()
		const keep = emulator.addPage({ title: 'Keep', blocks: [block.paragraph('stays')] })
		const trashed = emulator.addPage({ title: 'Trashed', blocks: [block.paragraph('goes to trash')] })
		const unshared = emulator.addPage({ title: 'Unshared', blocks: [block.paragraph('no longer shared')] })
		const incremental = harness({ reconcileEveryHours: 24 })
		await incremental.run()
		emulator.trash(trashed)
		emulator.unshare(unshared)
		const events = await incremental.run()
		expect(eventsOf(events, 'delete').map((event) => event.externalId)).toEqual([trashed])
		expect([...incremental.h.documents.keys()].sort()).toEqual([keep, unshared].sort())

		// A full listing asks Notion about each imported page it did not list: the first 404 is remembered, the second
		// deletes.
		incremental.h.ctx.accessToken = async () => emulator.issueTokens().access_token
		const full = async () =>
			await incremental.h.run(
				notion({ apiUrl: emulator.url, requestsPerSecond: 0, reconcileEveryHours: 0 }).sync as never,
			)
		await full()
		expect([...incremental.h.documents.keys()].sort()).toEqual([keep, unshared].sort())
		const second = await full()
		expect(eventsOf(second, 'delete').map((event) => event.externalId)).toEqual([unshared])
		expect([...incremental.h.documents.keys()]).toEqual([keep])
	})
})

describe('Notion connector: failures stay with their item', () => {
	it('records a malformed page as a failure, degrades unknown blocks and skips unreadable parts', async () => {
		emulator = startNotionEmulator()
		const good = emulator.addPage({ title: 'Good', blocks: [block.paragraph('Readable')] })
		emulator.addRawPage({ id: 'broken-page', last_edited_time: 'yesterday-ish' })
		emulator.addRawPage({ id: 'odd-properties', properties: 'not an object' })
		const partly = emulator.addPage({
			title: 'Partly readable',
			blocks: [block.paragraph('Visible'), { ...block.toggle('Folded', []), has_children: true }],
		})
		const { h, run } = harness()
		const events = await run()
		expect(h.documents.get(good)!.content).toContain('Readable')
		// The folded toggle's children could not be listed (404): the rest of its page is imported.
		expect(h.documents.get(partly)!.content).toContain('Visible\n\n▸ Folded')
		const failures = eventsOf(events, 'failure')
		expect(failures.map((failure) => failure.externalId).sort()).toEqual(['broken-page', 'odd-properties'])
		expect(failures[0]!.error).toContain('malformed')
		// Malformed pages exist: nothing they imported before is deleted.
		expect(eventsOf(events, 'delete')).toEqual([])
	})

	it('waits out 429 with Retry-After and paces its requests', async () => {
		emulator = startNotionEmulator()
		for (let i = 0; i < 4; i++) emulator.addPage({ title: `Paced ${i}`, blocks: [block.paragraph(`p${i}`)] })
		emulator.fail(/\/children$/, 429, 1, 1)
		const { h, run } = harness({ requestsPerSecond: 8 })
		await run()
		expect(h.documents.size).toBe(4)
		const api = emulator.log.filter((entry) => entry.path.startsWith('/v1/') && !entry.path.includes('oauth'))
		const limited = api.findIndex((entry) => entry.status === 429)
		expect(limited).toBeGreaterThanOrEqual(0)
		// Nothing was sent until the Retry-After second had passed.
		expect(api[limited + 1]!.at - api[limited]!.at).toBeGreaterThanOrEqual(990)
		// Otherwise calls went out 1/8 s apart: over the run, one wait of a second and an eighth of a second per other
		// gap (the slack covers a first request that arrived late).
		expect(api.length).toBeGreaterThanOrEqual(6)
		expect(api.at(-1)!.at - api[0]!.at).toBeGreaterThanOrEqual(1000 + (api.length - 2) * 125 - 150)
	})

	it('ends the run with ConnectorAuthError when Notion refuses the token and there is no refresh', async () => {
		emulator = startNotionEmulator()
		emulator.addPage({ title: 'Private', blocks: [] })
		const { run } = harness()
		emulator.revokeAll()
		await expect(run()).rejects.toBeInstanceOf(ConnectorAuthError)
	})

	it('gives up after repeated 429s with the status the runtime reports as rate_limited', async () => {
		emulator = startNotionEmulator()
		emulator.addPage({ title: 'Busy', blocks: [] })
		emulator.fail(/\/v1\/search/, 429, 0, 10)
		const { run } = harness({ maxRateLimitWaitSeconds: 3 })
		const error = (await run().catch((e) => e)) as { status?: number }
		expect(error).toBeInstanceOf(RateLimitedError)
		expect(error.status).toBe(429)
	}, 30_000)
})

describe('Notion connector: wiring', () => {
	it('loads from MEMORY_CONNECTORS with its NOTION_* settings, and refuses a bad request rate', async () => {
		const [connector] = await connectorsFromEnv({
			MEMORY_CONNECTORS: 'notion',
			NOTION_API_URL: 'http://127.0.0.1:9/',
			NOTION_WEBHOOK_VERIFICATION_TOKEN: 'one,two',
		})
		expect(connector).toMatchObject({ provider: 'notion', displayName: 'Notion' })
		expect(connector!.auth).toMatchObject({
			type: 'oauth2',
			tokenUrl: 'http://127.0.0.1:9/v1/oauth/token',
			env: { clientId: 'NOTION_CLIENT_ID', clientSecret: 'NOTION_CLIENT_SECRET' },
			settingsKey: 'notion',
		})
		await expect(
			connectorsFromEnv({ MEMORY_CONNECTORS: 'notion', NOTION_REQUESTS_PER_SECOND: 'fast' }),
		).rejects.toThrow('NOTION_REQUESTS_PER_SECOND')
	})
})
