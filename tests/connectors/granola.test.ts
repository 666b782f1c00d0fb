import { afterAll, beforeEach, describe, expect, it } from 'bun:test'
import { granola } from '../../connectors/granola/index.ts'
import { ConnectorAuthError, parseTranscript } from '../../core/index.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { type EmulatedNote, type GranolaEmulator, startGranolaEmulator } from '../../testkit/emulators/granola.ts'

const meeting = (id: string, title: string) => ({
	id,
	title,
	attendees: [
		{ name: 'Ann Lee', email: 'ann@example.com' },
		{ name: 'Bob Stone', email: 'bob@example.com' },
	],
	calendar_event: { scheduled_start_time: '2026-10-30T15:00:00.000Z' },
	summary_markdown: `### ${title}\n\n- Budget approved for the pilot\n- Bob owns the rollout plan`,
	transcript: <EmulatedNote['transcript']>[
		{
			speaker: { source: 'microphone' as const },
			text: 'Shall we start with the budget?',
			start_time: '0',
			end_time: '1',
		},
		{
			speaker: { source: 'speaker' as const },
			text: 'Yes, the pilot needs forty thousand.',
			start_time: '1',
			end_time: '2',
		},
		{ speaker: { source: 'speaker' as const }, text: 'I can own the rollout plan.', start_time: '2', end_time: '3' },
		{ speaker: { source: 'microphone' as const }, text: 'Great, approved then.', start_time: '3', end_time: '4' },
		{
			speaker: { source: 'speaker' as const },
			text: 'I will share a draft on Friday.',
			start_time: '4',
			end_time: '5',
		},
		{ speaker: { source: 'microphone' as const }, text: 'Thanks, talk next week.', start_time: '5', end_time: '6' },
	],
})

describe('granola connector', () => {
	let emulator: GranolaEmulator
	const connector = () => granola({ apiUrl: emulator.url, minRequestIntervalMs: 0 })
	const harness = () => syncHarness({ credentials: { apiKey: emulator.apiKey } })

	beforeEach(() => {
		emulator?.stop()
		emulator = startGranolaEmulator()
	})
	afterAll(() => emulator.stop())

	it('imports notes with summary, a speaker-labelled transcript, attendees and the meeting date', async () => {
		emulator.put(meeting('not_1', 'Pilot budget'))
		const sync = harness()
		await sync.run(connector().sync)
		const document = sync.documents.get('not_1')!
		expect(document.title).toBe('Pilot budget')
		expect(document.content).toContain('Budget approved for the pilot')
		expect(document.metadata).toMatchObject({
			type: 'granola',
			attendees: 'Ann Lee <ann@example.com>, Bob Stone <bob@example.com>',
			meetingStart: '2026-10-30T15:00:00.000Z',
			date: '2026-10-30T15:00:00.000Z',
		})
		expect(document.url).toBe('https://notes.granola.ai/d/not_1')
		// The conversation extraction reads it as a conversation between the two people.
		const transcript = parseTranscript(document.content ?? '')
		expect(transcript?.turns.map((turn) => turn.speaker)).toEqual([
			'Ann Lee',
			'Bob Stone',
			'Ann Lee',
			'Bob Stone',
			'Ann Lee',
		])
		expect(transcript?.turns[1]?.text).toBe('Yes, the pilot needs forty thousand. I can own the rollout plan.')
		expect(transcript?.preamble).toContain('[date: 2026-10-30T15:00:00.000Z]')
	})

	it('keeps a long meeting Markdown summary as a section, and a short meeting summary on one header line', async () => {
		const long = meeting('not_long', 'Long meeting')
		for (let index = 0; index < 20; index++) {
			long.transcript.push({
				speaker: { source: index % 2 ? 'microphone' : 'speaker' },
				text: `Point ${index}.`,
				start_time: '',
				end_time: '',
			})
		}
		emulator.put(long)
		emulator.put(meeting('not_short', 'Short meeting'))
		const sync = harness()
		await sync.run(connector().sync)
		const longContent = sync.documents.get('not_long')!.content ?? ''
		expect(longContent).toContain('## Summary\n\n### Long meeting\n\n- Budget approved for the pilot')
		expect(parseTranscript(longContent)).not.toBeNull()
		const shortContent = sync.documents.get('not_short')!.content ?? ''
		expect(shortContent).toContain('[summary: Short meeting; Budget approved for the pilot; Bob owns the rollout plan]')
		expect(parseTranscript(shortContent)).not.toBeNull()
	})

	it('labels other speakers by their diarization label when more than one other person attends', async () => {
		const note = meeting('not_2', 'Three people')
		note.attendees.push({ name: 'Cy Park', email: 'cy@example.com' })
		note.transcript[1]!.speaker = { source: 'speaker', diarization_label: 'B' } as never
		emulator.put(note)
		const sync = harness()
		await sync.run(connector().sync)
		const speakers = parseTranscript(sync.documents.get('not_2')!.content ?? '')?.turns.map((turn) => turn.speaker)
		expect(speakers).toEqual(['Ann Lee', 'Speaker B', 'Other', 'Ann Lee', 'Other', 'Ann Lee'])
	})

	it('pages through the listing and then lists only notes updated after the cursor', async () => {
		for (let index = 0; index < 65; index++)
			emulator.put(meeting(`not_${String(index).padStart(3, '0')}`, `M ${index}`))
		const sync = harness()
		await sync.run(connector().sync)
		expect(sync.documents.size).toBe(65)
		const firstListing = emulator.requests.filter((request) => request.path === '/v1/notes')
		expect(firstListing.map((request) => request.query.get('cursor'))).toEqual([null, '30', '60'])
		const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
		expect(sync.cursor).toEqual({ updatedAfter: yesterday })

		emulator.requests.length = 0
		emulator.put({ ...meeting('not_010', 'Renamed meeting') })
		const events = await sync.run(connector().sync)
		const incremental = emulator.requests.find((request) => request.query.has('updated_after'))
		expect(incremental?.query.get('updated_after')).toBe(yesterday)
		expect(eventsOf(events, 'upsert').map((event) => event.document.externalId)).toEqual(['not_010'])
		// Only the changed note was read in full.
		expect(emulator.requests.filter((request) => request.path.startsWith('/v1/notes/'))).toHaveLength(1)
		expect(sync.documents.get('not_010')!.title).toBe('Renamed meeting')
	})

	it('skips a note whose updated_at it already holds', async () => {
		emulator.put(meeting('not_1', 'Pilot budget'))
		const sync = harness()
		await sync.run(connector().sync)
		sync.cursor = null
		emulator.requests.length = 0
		const events = await sync.run(connector().sync)
		expect(eventsOf(events, 'unchanged').map((event) => event.externalId)).toEqual(['not_1'])
		expect(emulator.requests.filter((request) => request.path.startsWith('/v1/notes/'))).toHaveLength(0)
	})

	it('removes notes deleted at Granola through the full id list (reconciliation)', async () => {
		emulator.put(meeting('not_1', 'Kept'))
		emulator.put(meeting('not_2', 'Deleted later'))
		const sync = harness()
		await sync.run(connector().sync)
		emulator.remove('not_2')
		// Missing once could be a note being processed: kept; missing twice in a row: gone.
		await sync.run(connector().sync)
		expect([...sync.documents.keys()].sort()).toEqual(['not_1', 'not_2'])
		const events = await sync.run(connector().sync)
		expect(eventsOf(events, 'present')[0]?.externalIds).toEqual(['not_1'])
		expect([...sync.documents.keys()]).toEqual(['not_1'])
	})

	it('keeps a note left out of one listing while it is processed, and deletes nothing for it', async () => {
		emulator.put(meeting('not_1', 'Kept'))
		emulator.put(meeting('not_2', 'Regenerated'))
		const sync = harness()
		await sync.run(connector().sync)
		// Regenerating its summary: Granola leaves it out of the listing and answers 404 for it.
		emulator.processing('not_2', true)
		const during = await sync.run(connector().sync)
		expect(eventsOf(during, 'delete')).toEqual([])
		expect([...sync.documents.keys()].sort()).toEqual(['not_1', 'not_2'])
		emulator.put(meeting('not_2', 'Regenerated, new summary'))
		emulator.processing('not_2', false)
		await sync.run(connector().sync)
		await sync.run(connector().sync)
		expect(sync.documents.get('not_2')?.title).toBe('Regenerated, new summary')
		expect([...sync.documents.keys()].sort()).toEqual(['not_1', 'not_2'])
	})

	it('waits out a 429 for the time Retry-After asks, then goes on', async () => {
		emulator.put(meeting('not_1', 'Pilot budget'))
		emulator.rateLimitNext(2, 1)
		const sync = harness()
		await sync.run(connector().sync)
		expect(sync.documents.has('not_1')).toBe(true)
		const [first, second, third] = emulator.requests
		expect([first?.status, second?.status, third?.status]).toEqual([429, 429, 200])
		expect(second!.at - first!.at).toBeGreaterThanOrEqual(950)
		expect(third!.at - second!.at).toBeGreaterThanOrEqual(950)
	})

	it('spaces its requests by the minimum interval', async () => {
		for (let index = 0; index < 4; index++) emulator.put(meeting(`not_${index}`, `M ${index}`))
		const sync = harness()
		await sync.run(granola({ apiUrl: emulator.url, minRequestIntervalMs: 100 }).sync)
		const times = emulator.requests.map((request) => request.at)
		for (let index = 1; index < times.length; index++) {
			expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(90)
		}
	})

	it('gives up on a Retry-After longer than a minute with a clear error', async () => {
		emulator.rateLimitNext(1, 3600)
		const sync = harness()
		expect(sync.run(connector().sync)).rejects.toThrow(/asked to wait 3600 s/)
	})

	it('stops with ConnectorAuthError when the key is refused', async () => {
		const sync = syncHarness({ credentials: { apiKey: 'grn_revoked' } })
		expect(sync.run(connector().sync)).rejects.toBeInstanceOf(ConnectorAuthError)
	})

	it('checks the key before a connection is created: missing, refused, unreachable, good', async () => {
		const auth = connector().auth
		if (auth.type !== 'credentials' || !auth.validate) throw new Error('granola declares credentials')
		expect(auth.fields).toEqual([{ key: 'apiKey', label: 'Granola API key', secret: true }])
		expect(auth.validate({})).rejects.toThrow('Granola API key is required')
		expect(auth.validate({ apiKey: 'grn_wrong' })).rejects.toThrow('Granola API key is invalid')
		const unreachable = granola({ apiUrl: 'http://127.0.0.1:9', maxRetries: 0 }).auth
		if (unreachable.type !== 'credentials') throw new Error('granola declares credentials')
		expect(unreachable.validate!({ apiKey: emulator.apiKey })).rejects.toThrow('Could not reach Granola API')
		expect(await auth.validate({ apiKey: emulator.apiKey })).toBeUndefined()
	})

	it('syncs every 4 hours by default (Granola documents no webhooks), or as configured', () => {
		expect(connector().schedule).toEqual({ everyHours: 4 })
		expect(granola({ syncEveryHours: 24 }).schedule).toEqual({ everyHours: 24 })
		expect(granola({ syncEveryHours: null }).schedule).toEqual({ everyHours: null })
	})

	it('records a note it cannot read as a failure and goes on', async () => {
		emulator.put(meeting('not_1', 'Fine'))
		emulator.put(meeting('not_2', 'Broken'))
		const sync = harness()
		emulator.breakNote('not_2')
		const events = await sync.run(granola({ apiUrl: emulator.url, minRequestIntervalMs: 0, maxRetries: 1 }).sync)
		expect(eventsOf(events, 'failure').map((event) => event.externalId)).toEqual(['not_2'])
		expect(sync.documents.has('not_1')).toBe(true)
	})

	it('reads a note that failed on a later sync: the cursor never moves past it', async () => {
		emulator.put(meeting('not_1', 'Fine'))
		emulator.put(meeting('not_2', 'Broken for a while'))
		emulator.put(meeting('not_3', 'Fine too'))
		const sync = harness()
		const flaky = granola({ apiUrl: emulator.url, minRequestIntervalMs: 0, maxRetries: 1 })
		emulator.breakNote('not_2')
		await sync.run(flaky.sync)
		expect(sync.documents.has('not_2')).toBe(false)
		emulator.mendNote('not_2')
		await sync.run(flaky.sync)
		expect(sync.documents.get('not_2')?.title).toBe('Broken for a while')
		// And read alone, as core retries a failed item.
		expect(await flaky.readItem!(sync.ctx, 'not_2')).toBe('unchanged')
		emulator.put(meeting('not_2', 'Edited since'))
		expect(await flaky.readItem!(sync.ctx, 'not_2')).toMatchObject({ externalId: 'not_2', title: 'Edited since' })
		emulator.remove('not_2')
		expect(await flaky.readItem!(sync.ctx, 'not_2')).toBe('gone')
	})

	it('misses no edit made while the listing paged on, whatever order the notes come in', async () => {
		for (let index = 0; index < 40; index++)
			emulator.put(meeting(`not_${String(index).padStart(3, '0')}`, `M ${index}`))
		const sync = harness()
		// Once a note of the first page is read, it is edited, then one of the second page, later.
		emulator.afterRequest = (path) => {
			if (path !== '/v1/notes/not_001') return
			emulator.afterRequest = null
			emulator.put(meeting('not_001', 'Edited mid-sync'))
			emulator.put(meeting('not_035', 'Edited after it'))
		}
		await sync.run(connector().sync)
		expect(sync.documents.get('not_001')?.title).toBe('M 1')
		await sync.run(connector().sync)
		expect(sync.documents.get('not_001')?.title).toBe('Edited mid-sync')
	})
})
