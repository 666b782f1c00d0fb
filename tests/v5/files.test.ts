import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('v5 file documents', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver)
	}, 120_000)
	afterAll(() => t.stop())

	/** A multipart request as the Python SDK sends it (JSON-encoded metadata and group). */
	async function form(method: string, path: string, fields: Record<string, string | File>, key: string | null = t.key) {
		const body = new FormData()
		for (const [name, value] of Object.entries(fields)) body.set(name, value)
		const response = await t.service.app!.handle(
			new Request(`http://localhost${path}`, {
				method,
				headers: key ? { authorization: `Bearer ${key}` } : {},
				body,
			}),
		)
		return { status: response.status, body: (await response.json()) as any }
	}
	const text = (content: string, name = 'notes.txt') => new File([content], name, { type: 'text/plain' })

	it('uploads a file as a new document with a generated id', async () => {
		const uploaded = await form('POST', '/ns/files_1/document/file', {
			file: text('The greenhouse heater needs a new thermostat.'),
			metadata: '{"source":"upload"}',
			group: '{"project":"farm"}',
			supportingContext: 'Farm maintenance notes',
			fileType: 'text',
		})
		expect(uploaded.status).toBe(200)
		expect(uploaded.body).toEqual({ id: expect.any(String), status: 'queued' })
		await t.waitForStatus(uploaded.body.id)
		const got = await t.json('GET', `/ns/files_1/document/${uploaded.body.id}`)
		expect(got.body.content).toContain('thermostat')
		expect(got.body.metadata).toEqual({ source: 'upload', project: 'farm' })
	})

	it('refuses bad forms: no file, unknown fields, bad JSON metadata, a bad mimeType, no key', async () => {
		const cases: Record<string, string | File>[] = [
			{ metadata: '{}' },
			{ file: text('x'), id: 'mine' },
			{ file: text('x'), metadata: '{not json' },
			{ file: text('x'), metadata: '{"a":{"b":1}}' },
			{ file: text('x'), mimeType: 'text plain' },
			{ file: text('x'), fileType: 'spreadsheet' },
		]
		for (const fields of cases) {
			const answer = await form('POST', '/ns/files_1/document/file', fields)
			expect([JSON.stringify(Object.keys(fields)), answer.status]).toEqual([JSON.stringify(Object.keys(fields)), 400])
			expect(answer.body.success).toBe(false)
		}
		expect((await form('POST', '/ns/files_1/document/file', { file: text('x') }, null)).status).toBe(401)
	})

	it('replaces a document with a file, keeping its id and overwriting its metadata', async () => {
		await t.json('POST', '/ns/files_2/document', {
			content: 'Old notes about apples.',
			id: 'report',
			metadata: { a: 1 },
		})
		await t.waitForStatus('report')
		const replaced = await form('POST', '/ns/files_2/document/file/report', {
			file: text('New notes about pears.', 'pears.txt'),
			metadata: '{"b":2}',
		})
		expect(replaced.body).toEqual({ id: 'report', status: 'queued' })
		await t.waitForStatus('report')
		const got = await t.json('GET', '/ns/files_2/document/report')
		expect(got.body.content).toBe('New notes about pears.')
		expect(got.body.metadata).toEqual({ b: 2 })
		expect((await form('POST', '/ns/files_2/document/file/nope', { file: text('x') })).status).toBe(404)
		expect((await form('POST', '/ns/files_1/document/file/report', { file: text('x') })).status).toBe(404)
	})

	it('updates a file document partially: fields only, or a new file keeping the metadata', async () => {
		const fieldsOnly = await form('PATCH', '/ns/files_2/document/file/report', { metadata: '{"c":3}' })
		expect(fieldsOnly.body).toEqual({ id: 'report', status: 'done' })
		expect((await t.json('GET', '/ns/files_2/document/report')).body.metadata).toEqual({ b: 2, c: 3 })
		const withFile = await form('PATCH', '/ns/files_2/document/file/report', { file: text('Notes about plums.') })
		expect(withFile.body.status).toBe('queued')
		await t.waitForStatus('report')
		const got = await t.json('GET', '/ns/files_2/document/report')
		expect(got.body.content).toBe('Notes about plums.')
		expect(got.body.metadata).toEqual({ b: 2, c: 3 })
	})
	it('replaces and updates by service id a document that has no caller id', async () => {
		const added = await t.json('POST', '/ns/files_3/document', { content: 'Notes about quinces.', metadata: { a: 1 } })
		const id = added.body.id as string
		await t.waitForStatus(id)
		const replaced = await form('POST', `/ns/files_3/document/file/${id}`, {
			file: text('Notes about figs.', 'figs.txt'),
			metadata: '{"b":2}',
		})
		expect(replaced.status).toBe(200)
		expect(replaced.body).toEqual({ id, status: 'queued' })
		await t.waitForStatus(id)
		let got = await t.json('GET', `/ns/files_3/document/${id}`)
		expect(got.body.content).toBe('Notes about figs.')
		expect(got.body.metadata).toEqual({ b: 2 })

		const uploaded = await form('POST', '/ns/files_3/document/file', { file: text('Notes about dates.') })
		await t.waitForStatus(uploaded.body.id)
		const patched = await form('PATCH', `/ns/files_3/document/file/${uploaded.body.id}`, {
			file: text('Notes about limes.'),
			metadata: '{"c":3}',
		})
		expect(patched.body).toEqual({ id: uploaded.body.id, status: 'queued' })
		await t.waitForStatus(uploaded.body.id)
		got = await t.json('GET', `/ns/files_3/document/${uploaded.body.id}`)
		expect(got.body.content).toBe('Notes about limes.')
		expect(got.body.metadata).toEqual({ c: 3 })
		const listed = await t.json('POST', '/ns/files_3/list/documents', {})
		expect(listed.body.pagination.totalItems).toBe(2)
		// Another namespace's document is not reached by its id.
		expect((await form('POST', `/ns/files_1/document/file/${id}`, { file: text('x') })).status).toBe(404)
	})
})
