import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('batch ingest', (driver) => {
	let t: TestService
	beforeAll(async () => {
		// These tests are about ingestion; memory formation has its own suites.
		t = await startTestService(driver, { extractor: null })
	}, 60_000)
	afterAll(() => t.stop())

	const countIn = async (containerTag: string) =>
		(await t.json('POST', '/v3/documents/list', { containerTags: [containerTag], limit: 1 })).body.pagination
			.totalItems as number

	it('adds 600 documents with one result per item, in request order, and processes them all', async () => {
		const documents = Array.from({ length: 600 }, (_, i) => ({
			content: `Note ${i}: the lighthouse at point ${i} was painted ${i % 2 ? 'red' : 'white'}.`,
			customId: `note-${i}`,
			metadata: { n: i },
		}))
		const response = await t.json('POST', '/v3/documents/batch', { documents, containerTag: 'batch_600' })
		expect(response.status).toBe(200)
		expect(response.body.success).toBe(600)
		expect(response.body.failed).toBe(0)
		expect(response.body.results).toHaveLength(600)
		for (const result of response.body.results) expect(result).toEqual({ id: expect.any(String), status: 'queued' })
		// Request order: item i is the document with customId note-i.
		for (const i of [0, 17, 299, 599]) {
			const document = await t.json('GET', `/v3/documents/${response.body.results[i].id}`)
			expect(document.body).toMatchObject({ customId: `note-${i}`, metadata: { n: i }, containerTag: 'batch_600' })
		}
		const deadline = Date.now() + 120_000
		for (;;) {
			const processing = await t.json('GET', '/v3/documents/processing')
			if (processing.body.totalCount === 0) break
			if (Date.now() > deadline) throw new Error(`${processing.body.totalCount} documents still processing`)
			await Bun.sleep(200)
		}
		const done = await t.json('POST', '/v3/documents/list', {
			containerTags: ['batch_600'],
			limit: 1,
			filters: { AND: [{ key: 'n', value: '599', filterType: 'numeric' }] },
		})
		expect(done.body.memories[0]).toMatchObject({ customId: 'note-599', status: 'done' })
		expect(await countIn('batch_600')).toBe(600)
		const hits = await t.json('POST', '/v3/search', { q: 'lighthouse at point 433', containerTags: ['batch_600'] })
		expect(hits.body.results.length).toBeGreaterThan(0)
	}, 180_000)

	it('refuses more than 600 documents, or none, with a 400 and stores nothing', async () => {
		const tooMany = await t.json('POST', '/v3/documents/batch', {
			documents: Array.from({ length: 601 }, (_, i) => `doc ${i}`),
			containerTag: 'batch_over',
		})
		expect(tooMany.status).toBe(400)
		expect(tooMany.body.details).toContain('600')
		expect((await t.json('POST', '/v3/documents/batch', { documents: [] })).status).toBe(400)
		expect((await t.json('POST', '/v3/documents/batch', { containerTag: 'x' })).status).toBe(400)
		const badDefault = await t.json('POST', '/v3/documents/batch', { documents: ['x'], containerTag: 'bad tag!' })
		expect(badDefault.status).toBe(400)
		expect(badDefault.body.details).toContain('containerTag')
		const unknown = await t.json('POST', '/v3/documents/batch', { documents: ['x'], colour: 'blue' })
		expect(unknown.status).toBe(400)
		expect(await countIn('batch_over')).toBe(0)
	})

	it('reports an invalid item with its error and still adds the others', async () => {
		const response = await t.json('POST', '/v3/documents/batch', {
			containerTag: 'batch_mixed',
			documents: [
				{ content: 'First good item about otters.' },
				{ content: '' },
				{ content: 'Has a bad tag', containerTag: 'no spaces allowed' },
				'A bare string item about beavers.',
				{ content: 'Unknown field', colour: 'blue' },
				42,
				{ content: 'Last good item about herons.', dreaming: 'instant' },
			],
		})
		expect(response.status).toBe(200)
		const results = response.body.results
		expect(results.map((r: { status: string }) => r.status)).toEqual([
			'queued',
			'error',
			'error',
			'queued',
			'error',
			'error',
			'queued',
		])
		expect(results[1]).toEqual({
			id: '',
			status: 'error',
			error: 'Invalid request parameters',
			details: expect.stringContaining('documents[1].content'),
		})
		expect(results[2].details).toContain('documents[2].containerTag')
		expect(results[4].details).toContain('colour')
		expect(results[5].details).toContain('documents[5]')
		expect(response.body).toMatchObject({ success: 3, failed: 4 })
		expect(await countIn('batch_mixed')).toBe(3)
		for (const i of [0, 3, 6]) expect((await t.waitForStatus(results[i].id)).status).toBe('done')
	})

	it('applies batch-wide fields as defaults, the item winning, and merges metadata', async () => {
		const response = await t.json('POST', '/v3/documents/batch', {
			containerTag: 'batch_defaults',
			metadata: { source: 'import', team: 'a' },
			dreaming: 'instant',
			documents: [
				{ content: 'Default tag item.' },
				{ content: 'Own tag item.', containerTag: 'batch_own', metadata: { team: 'b' } },
			],
		})
		const [first, second] = response.body.results
		expect((await t.json('GET', `/v3/documents/${first.id}`)).body).toMatchObject({
			containerTag: 'batch_defaults',
			metadata: { source: 'import', team: 'a' },
			dreaming: 'instant',
		})
		expect((await t.json('GET', `/v3/documents/${second.id}`)).body).toMatchObject({
			containerTag: 'batch_own',
			metadata: { source: 'import', team: 'b' },
		})
	})

	it('upserts by customId like a single add: unchanged content is not processed again', async () => {
		const first = await t.json('POST', '/v3/documents/batch', {
			containerTag: 'batch_upsert',
			documents: [{ content: 'Version one.', customId: 'same' }],
		})
		const id = first.body.results[0].id
		await t.waitForStatus(id)
		const again = await t.json('POST', '/v3/documents/batch', {
			containerTag: 'batch_upsert',
			documents: [
				{ content: 'Version one.', customId: 'same' },
				{ content: 'Other.', customId: 'other' },
			],
		})
		expect(again.body.results[0]).toEqual({ id, status: 'done' })
		const changed = await t.json('POST', '/v3/documents/batch', {
			containerTag: 'batch_upsert',
			documents: [{ content: 'Version two.', customId: 'same' }],
		})
		expect(changed.body.results[0]).toEqual({ id, status: 'queued' })
		await t.waitForStatus(id)
		expect((await t.json('GET', `/v3/documents/${id}/chunks`)).body.chunks[0].content).toBe('Version two.')
	})

	it('takes URLs and structured content as items, as a single add does', async () => {
		const response = await t.json('POST', '/v3/documents/batch', {
			containerTag: 'batch_kinds',
			documents: [
				{ content: { title: 'Order 5', sku: 'KAYAK-2' }, metadataFields: ['sku'] },
				{ content: 'file:///etc/passwd' },
			],
		})
		const [structured, url] = response.body.results
		const order = await t.waitForStatus(structured.id)
		expect(order).toMatchObject({ status: 'done', title: 'Order 5', metadata: { sku: 'KAYAK-2' } })
		const refused = await t.waitForStatus(url.id)
		expect(refused.status).toBe('failed')
		expect(refused.error).toContain('only http and https')
	})
})
