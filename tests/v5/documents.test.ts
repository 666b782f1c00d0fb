import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

describeEachDriver('v5 documents', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver)
	}, 120_000)
	afterAll(() => t.stop())

	it('adds a document and answers a DocumentRef with the caller id', async () => {
		const added = await t.json('POST', '/ns/user_1/document', {
			content: 'Alice drinks green tea every morning.',
			id: 'chat/session 1',
			metadata: { source: 'chat', turns: 2 },
			supportingContext: 'A chat with Alice',
			dreaming: 'instant',
		})
		expect(added.status).toBe(200)
		expect(added.body).toEqual({ id: 'chat/session 1', status: 'queued' })
		await t.waitForStatus(encodeURIComponent('chat/session 1'))
		const got = await t.json('GET', `/ns/user_1/document/${encodeURIComponent('chat/session 1')}`)
		expect(got.status).toBe(200)
		expect(Object.keys(got.body).sort()).toEqual(['content', 'id', 'metadata', 'summary', 'system', 'title', 'type'])
		expect(got.body.id).toBe('chat/session 1')
		expect(got.body.content).toBe('Alice drinks green tea every morning.')
		expect(got.body.metadata).toEqual({ source: 'chat', turns: 2 })
		expect(got.body.system.status).toBe('done')
		expect(got.body.system.createdAt).toMatch(TIMESTAMP)
		expect(got.body.system.updatedAt).toMatch(TIMESTAMP)
	})

	it('re-sending an id appends and keeps the earlier content; a retried append changes nothing', async () => {
		const first = await t.json('POST', '/ns/user_1/document', { content: 'Bob plays chess on Sundays.', id: 'notes' })
		await t.waitForStatus('notes')
		const again = await t.json('POST', '/ns/user_1/document', { content: 'Bob plays chess on Sundays.', id: 'notes' })
		expect(again.body).toEqual({ id: 'notes', status: 'done' })
		const appended = await t.json('POST', '/ns/user_1/document', {
			content: 'Bob moved to Lisbon.',
			id: 'notes',
			metadata: { city: 'Lisbon' },
		})
		expect(appended.body).toEqual({ id: 'notes', status: 'queued' })
		// The SDK retries a POST on 5xx/409/429: the same append again is a no-op.
		const retried = await t.json('POST', '/ns/user_1/document', { content: 'Bob moved to Lisbon.', id: 'notes' })
		expect(retried.status).toBe(200)
		await t.waitForStatus('notes')
		const got = await t.json('GET', '/ns/user_1/document/notes')
		expect(got.body.content).toBe('Bob plays chess on Sundays.\n\nBob moved to Lisbon.')
		expect(got.body.metadata).toEqual({ city: 'Lisbon' })
		expect(first.body.id).toBe('notes')
		const listed = await t.json('POST', '/ns/user_1/list/documents', {})
		expect(listed.body.documents.filter((d: { id: string }) => d.id === 'notes')).toHaveLength(1)
	})

	it('answers a retried add without an id (the SDK retries POSTs) with the document it made', async () => {
		const body = { content: 'Carla waters the ferns on Sundays.', metadata: { room: 'hall' } }
		const first = await t.json('POST', '/ns/retry_1/document', body)
		const [again, concurrent] = await Promise.all([
			t.json('POST', '/ns/retry_1/document', body),
			t.json('POST', '/ns/retry_1/document', body),
		])
		expect([again.body.id, concurrent.body.id]).toEqual([first.body.id, first.body.id])
		const batch = await t.json('POST', '/ns/retry_1/document/batch', { documents: [body] })
		expect(batch.body.results[0].id).toBe(first.body.id)
		// Another text, other metadata or another namespace is another document.
		const distinct = await Promise.all([
			t.json('POST', '/ns/retry_1/document', { ...body, metadata: { room: 'porch' } }),
			t.json('POST', '/ns/retry_1/document', { content: 'Carla waters the palms on Sundays.' }),
			t.json('POST', '/ns/retry_2/document', body),
		])
		expect(new Set([first.body.id, ...distinct.map((answer) => answer.body.id)]).size).toBe(4)
		expect((await t.json('POST', '/ns/retry_1/list/documents', {})).body.pagination.totalItems).toBe(3)
		// v3 adds keep their own rule: every add without a customId is a document.
		const v3 = await t.json('POST', '/v3/documents', { content: body.content, containerTag: 'retry_1' })
		expect(v3.body.id).not.toBe(first.body.id)
	})

	it('scopes caller ids to the namespace', async () => {
		await t.json('POST', '/ns/user_2/document', { content: 'Carol keeps bees.', id: 'notes' })
		await t.waitForStatus('notes')
		expect((await t.json('GET', '/ns/user_2/document/notes')).body.content).toBe('Carol keeps bees.')
		expect((await t.json('GET', '/ns/user_1/document/notes')).body.content).toContain('Bob plays chess')
		const missing = await t.json('GET', '/ns/user_3/document/notes')
		expect(missing.status).toBe(404)
		expect(typeof missing.body.error).toBe('string')
	})

	it('gets chunks and memories on request (repeated, comma-separated or rc1 attach)', async () => {
		const path = `/ns/user_1/document/${encodeURIComponent('chat/session 1')}`
		for (const query of ['?include=chunks&include=memories', '?include=chunks,memories', '?attach=chunks,memories']) {
			const got = await t.json('GET', `${path}${query}`)
			expect(got.status).toBe(200)
			expect(got.body.chunks.length).toBeGreaterThan(0)
			expect(Object.keys(got.body.chunks[0]).sort()).toEqual([
				'content',
				'id',
				'metadata',
				'position',
				'system',
				'type',
			])
			expect(Array.isArray(got.body.memories)).toBe(true)
		}
		const bad = await t.json('GET', `${path}?include=everything`)
		expect(bad.status).toBe(400)
		expect(bad.body.success).toBe(false)
	})

	it('batch adds up to 600, accepted first then failed, with count and failed', async () => {
		const batch = await t.json('POST', '/ns/user_4/document/batch', {
			documents: [
				{ content: 'Dave likes jazz.', id: 'b1' },
				{ content: 'Erin runs marathons.', id: 'b2', metadata: { kind: 'sport' } },
				{ content: 'Frank bakes bread.' },
			],
			dreaming: 'instant',
		})
		expect(batch.status).toBe(200)
		expect(batch.body.count).toBe(3)
		expect(batch.body.failed).toBe(0)
		expect(batch.body.results.map((r: { id: string }) => r.id).slice(0, 2)).toEqual(['b1', 'b2'])
		const retried = await t.json('POST', '/ns/user_4/document/batch', {
			documents: [{ content: 'Dave likes jazz.', id: 'b1' }],
		})
		expect(retried.body.results[0].id).toBe('b1')
		await t.waitForStatus('b1')
		const listed = await t.json('POST', '/ns/user_4/list/documents?limit=100', {})
		expect(listed.body.pagination.totalItems).toBe(3)
		const tooMany = await t.json('POST', '/ns/user_4/document/batch', {
			documents: Array.from({ length: 601 }, (_, i) => ({ content: `x ${i}` })),
		})
		expect(tooMany.status).toBe(400)
		expect(tooMany.body.success).toBe(false)
		const empty = await t.json('POST', '/ns/user_4/document/batch', { documents: [] })
		expect(empty.status).toBe(400)
	})

	it('updates a document: content replaced, other fields kept', async () => {
		await t.json('POST', '/ns/user_5/document', { content: 'Gina paints.', id: 'g', metadata: { a: 'b' } })
		await t.waitForStatus('g')
		const patched = await t.json('PATCH', '/ns/user_5/document/g', { content: 'Gina paints portraits.' })
		expect(patched.body).toEqual({ id: 'g', status: 'queued' })
		await t.waitForStatus('g')
		const got = await t.json('GET', '/ns/user_5/document/g')
		expect(got.body.content).toBe('Gina paints portraits.')
		expect(got.body.metadata).toEqual({ a: 'b' })
		const metadataOnly = await t.json('PATCH', '/ns/user_5/document/g', { metadata: { c: 1 } })
		expect(metadataOnly.body.status).toBe('done')
		expect((await t.json('GET', '/ns/user_5/document/g')).body.metadata).toEqual({ a: 'b', c: 1 })
		expect((await t.json('PATCH', '/ns/user_5/document/g', {})).status).toBe(200)
		expect((await t.json('PATCH', '/ns/user_5/document/nope', {})).status).toBe(404)
		expect((await t.json('PATCH', '/ns/user_1/document/g', {})).status).toBe(404)
	})

	it('deletes by internal or caller id with per-id errors, never a 404', async () => {
		const a = await t.json('POST', '/ns/user_6/document', { content: 'Hank fishes.', id: 'h1' })
		const b = await t.json('POST', '/ns/user_6/document', { content: 'Ivy climbs.' })
		await t.waitForStatus('h1')
		await t.waitForStatus(b.body.id)
		const deleted = await t.json('DELETE', '/ns/user_6/document', { ids: ['h1', b.body.id, 'missing', 'notes'] })
		expect(deleted.status).toBe(200)
		expect(deleted.body.count).toBe(2)
		expect(deleted.body.errors.map((e: { id: string }) => e.id).sort()).toEqual(['missing', 'notes'])
		expect(a.body.id).toBe('h1')
		expect((await t.json('GET', '/ns/user_6/document/h1')).status).toBe(404)
		// user_1's "notes" was not in user_6 and is untouched.
		expect((await t.json('GET', '/ns/user_1/document/notes')).status).toBe(200)
		const tooMany = await t.json('DELETE', '/ns/user_6/document', {
			ids: Array.from({ length: 101 }, (_, i) => `${i}`),
		})
		expect(tooMany.status).toBe(400)
	})

	it('refuses bad input with a ValidationErrorResponse naming the field', async () => {
		const cases: [string, string, unknown, (string | number)[]][] = [
			['POST', '/ns/user_1/document', { content: 'x', bogus: 1 }, ['bogus']],
			['POST', '/ns/user_1/document', { content: '' }, ['content']],
			['POST', '/ns/user_1/document', { content: 'x', id: 'i'.repeat(256) }, ['id']],
			['POST', '/ns/user_1/document', { content: 'x', supportingContext: 's'.repeat(1501) }, ['supportingContext']],
			['POST', '/ns/user_1/document', { content: 'x', dreaming: 'later' }, ['dreaming']],
			['POST', '/ns/user_1/document', { content: 'x', metadata: { a: { b: 1 } } }, ['metadata', 'a']],
			[
				'POST',
				'/ns/user_1/document/batch',
				{ documents: [{ content: 'x', taskType: 'memory' }] },
				['documents', 0, 'taskType'],
			],
			['POST', `/ns/${'n'.repeat(101)}/document`, { content: 'x' }, ['params', 'namespace']],
			['POST', '/ns/bad%20name/document', { content: 'x' }, ['params', 'namespace']],
		]
		for (const [method, path, body, where] of cases) {
			const answer = await t.json(method, path, body)
			expect(answer.status).toBe(400)
			expect(answer.body.success).toBe(false)
			expect(
				answer.body.error.some((issue: { path: unknown[] }) => JSON.stringify(issue.path) === JSON.stringify(where)),
			).toBe(true)
			expect(typeof answer.body.error[0].message).toBe('string')
		}
	})

	it('treats null on optional fields as absent', async () => {
		const added = await t.json('POST', '/ns/user_7/document', { content: 'Jack sails.', id: null, metadata: null })
		expect(added.status).toBe(200)
	})

	it('accepts namespaces with ":" sent percent-encoded', async () => {
		const added = await t.json('POST', '/ns/org%3Ateam/document', { content: 'Kim codes in Rust.', id: 'k' })
		expect(added.status).toBe(200)
		await t.waitForStatus('k')
		expect((await t.json('GET', '/ns/org:team/document/k')).body.content).toBe('Kim codes in Rust.')
	})

	it('answers 401 in ErrorResponse shape without a key', async () => {
		const answer = await t.request('POST', '/ns/user_1/document', { body: { content: 'x' }, key: null })
		expect(answer.status).toBe(401)
		const body = (await answer.json()) as any
		expect(typeof body.error).toBe('string')
	})

	it('serves the same operations under /v5', async () => {
		const added = await t.json('POST', '/v5/ns/user_8/document', { content: 'Liam surfs.', id: 'l' })
		expect(added.body).toEqual({ id: 'l', status: 'queued' })
		expect((await t.json('GET', '/v5/ns/user_8/document/l')).status).toBe(200)
	})
})
