import { afterAll, beforeAll, expect, it } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describeEachDriver } from '../../testkit/drivers.ts'
import {
	binaryGarbage,
	fixture,
	sampleDocx,
	samplePdf,
	samplePptx,
	sampleXlsx,
	zipBombDocx,
} from '../../testkit/sample-files.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { getPath, upload } from '../../testkit/upload.ts'

const UPLOAD_LIMIT = 300_000

describeEachDriver('file uploads, originals and signed URLs', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver, {
			env: { MEMORY_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT), MEMORY_MAX_UNCOMPRESSED_BYTES: String(8 * 1024 * 1024) },
			// These tests are about ingestion; memory formation has its own suites.
			extractor: null,
		})
	}, 60_000)
	afterAll(() => t.stop())

	const filesDir = () => join(t.dataDir, 'files')
	const storedFiles = () =>
		existsSync(filesDir())
			? readdirSync(filesDir(), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
			: []
	const countDocuments = async () =>
		(await t.json('POST', '/v3/documents/list', { limit: 1 })).body.pagination.totalItems as number
	const search = async (q: string, containerTag: string) =>
		(await t.json('POST', '/v3/search', { q, containerTags: [containerTag] })).body.results as any[]

	it('turns an uploaded PDF into searchable chunks, keeping its title, metadata and original', async () => {
		const pdf = await samplePdf('Lighthouse log', ['The keeper counted 42 passing ships in March.'])
		const added = await upload(
			t,
			{ bytes: pdf, name: 'lighthouse.pdf', type: 'application/pdf' },
			{
				containerTag: 'files_pdf',
				metadata: JSON.stringify({ category: 'logs', year: 1887 }),
				customId: 'log-1887',
			},
		)
		expect(added.status).toBe(200)
		expect(added.body).toEqual({ id: expect.any(String), status: 'queued' })
		const done = await t.waitForStatus(added.body.id)
		expect(done).toMatchObject({
			status: 'done',
			type: 'pdf',
			title: 'Lighthouse log',
			metadata: { category: 'logs', year: 1887 },
			customId: 'log-1887',
			source: 'file',
			file: { name: 'lighthouse.pdf', mimeType: 'application/pdf', size: pdf.length },
		})
		expect(done.content).toContain('42 passing ships')
		const hits = await search('how many ships did the keeper count', 'files_pdf')
		expect(hits[0].documentId).toBe(added.body.id)
		expect(hits[0].chunks[0].content).toContain('42 passing ships')
	})

	it('turns DOCX, PPTX, XLSX, CSV, Markdown, JSON and an image into searchable documents of their type', async () => {
		const files: [Uint8Array, string, string, string][] = [
			[
				await sampleDocx('Garden notes', ['Basil wants water every morning.']),
				'garden.docx',
				'google_doc',
				'basil water',
			],
			[
				await samplePptx([['Roadmap', 'Launch the comet telescope in May']]),
				'roadmap.pptx',
				'google_slide',
				'comet telescope',
			],
			[
				sampleXlsx([
					{
						name: 'Stock',
						rows: [
							['Item', 'Count'],
							['Walrus tusks', 12],
						],
					},
				]),
				'stock.xlsx',
				'google_sheet',
				'walrus tusks',
			],
			[new TextEncoder().encode('city,river\nParis,Seine\nCairo,Nile'), 'rivers.csv', 'google_sheet', 'Nile river'],
			[
				new TextEncoder().encode('# Recipes\n\nSourdough needs a lively starter.'),
				'recipes.md',
				'text',
				'sourdough starter',
			],
			[
				new TextEncoder().encode('{"title":"Order 7","customer":{"name":"Grace Hopper"}}'),
				'order.json',
				'text',
				'Grace Hopper',
			],
			[await fixture('ocr-invoice.png'), 'scan.png', 'image', 'invoice 4471'],
		]
		const ids: string[] = []
		for (const [bytes, name] of files) {
			const added = await upload(t, { bytes, name }, { containerTag: 'files_mixed' })
			expect(added.status).toBe(200)
			ids.push(added.body.id)
		}
		for (const [i, [, name, type, query]] of files.entries()) {
			const done = await t.waitForStatus(ids[i]!)
			expect({ name, status: done.status, type: done.type, error: done.error }).toEqual({
				name,
				status: 'done',
				type,
				error: null,
			})
			const hits = await search(query, 'files_mixed')
			expect({ name, top: hits[0]?.documentId }).toEqual({ name, top: ids[i] })
		}
	})

	it('serves the original through a signed URL that expires and cannot be forged', async () => {
		const bytes = await sampleDocx('Signed', ['Only the signed URL serves this file.'])
		const added = await upload(t, { bytes, name: 'signed report.docx' }, { containerTag: 'files_url' })
		await t.waitForStatus(added.body.id)
		const { status, body } = await t.json('GET', `/v3/documents/${added.body.id}/file-url`)
		expect(status).toBe(200)
		expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600 * 1000)
		const served = await getPath(t, body.url)
		expect(served.status).toBe(200)
		expect(served.headers.get('content-type')).toBe(
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
		)
		expect(served.headers.get('content-disposition')).toContain('signed%20report.docx')
		expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)

		const url = new URL(body.url)
		const forged = new URL(url)
		// One character changed, so the forgery differs from the signature whatever it is.
		const signature = url.searchParams.get('signature')!
		forged.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`)
		expect((await getPath(t, forged.toString())).status).toBe(403)
		const extended = new URL(url)
		extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600))
		expect((await getPath(t, extended.toString())).status).toBe(403)
		const otherDocument = await upload(t, { bytes, name: 'copy.docx' }, { containerTag: 'files_url' })
		const moved = new URL(url)
		moved.pathname = moved.pathname.replace(added.body.id, otherDocument.body.id)
		expect((await getPath(t, moved.toString())).status).toBe(403)

		const textDocument = await t.json('POST', '/v3/documents', { content: 'plain text', containerTag: 'files_url' })
		expect((await t.json('GET', `/v3/documents/${textDocument.body.id}/file-url`)).status).toBe(404)
		const stranger = await t.createKey('files-stranger')
		expect((await t.json('GET', `/v3/documents/${added.body.id}/file-url`, undefined, stranger)).status).toBe(404)
	})

	it('deletes the original with its document, and replaces it on a re-upload with the same customId', async () => {
		const before = storedFiles().length
		const first = await upload(
			t,
			{ bytes: await samplePdf('v1', ['first version']), name: 'v.pdf' },
			{
				containerTag: 'files_del',
				customId: 'versioned',
			},
		)
		expect(storedFiles().length).toBe(before + 1)
		const second = await upload(
			t,
			{ bytes: await samplePdf('v2', ['second version']), name: 'v.pdf' },
			{
				containerTag: 'files_del',
				customId: 'versioned',
			},
		)
		expect(second.body.id).toBe(first.body.id)
		expect(storedFiles().length).toBe(before + 1)
		const done = await t.waitForStatus(first.body.id)
		expect(done.content).toContain('second version')

		expect((await t.request('DELETE', `/v3/documents/${first.body.id}`)).status).toBe(204)
		expect(storedFiles().length).toBe(before)

		const a = await upload(t, { bytes: await samplePdf('a', ['a']), name: 'a.pdf' }, { containerTag: 'files_bulk' })
		const b = await upload(t, { bytes: await samplePdf('b', ['b']), name: 'b.pdf' }, { containerTag: 'files_bulk' })
		expect([a.status, b.status]).toEqual([200, 200])
		expect(storedFiles().length).toBe(before + 2)
		const bulk = await t.json('DELETE', '/v3/documents/bulk', { containerTags: ['files_bulk'] })
		expect(bulk.body.deletedCount).toBe(2)
		expect(storedFiles().length).toBe(before)
	})

	it('refuses an upload over the limit with 413 and stores nothing', async () => {
		const documents = await countDocuments()
		const files = storedFiles().length
		const big = new TextEncoder().encode('a'.repeat(UPLOAD_LIMIT + 10))
		const response = await upload(t, { bytes: big, name: 'big.txt' })
		expect(response.status).toBe(413)
		expect(response.body.error).toBe('Payload too large')
		expect(await countDocuments()).toBe(documents)
		expect(storedFiles().length).toBe(files)
	})

	it('refuses unsupported, mislabelled, empty and garbage files with a 4xx naming what it found', async () => {
		const documents = await countDocuments()
		const files = storedFiles().length
		const { zipSync } = await import('fflate')
		const zip = await upload(t, { bytes: zipSync({ 'a.txt': new TextEncoder().encode('hi') }), name: 'archive.zip' })
		expect(zip.status).toBe(415)
		expect(zip.body).toMatchObject({ error: 'Unsupported file type' })
		expect(zip.body.details).toContain('application/zip')

		const png = await fixture('ocr-invoice.png')
		const mislabelled = await upload(t, { bytes: png, name: 'report.pdf', type: 'application/pdf' })
		expect(mislabelled.status).toBe(415)
		expect(mislabelled.body.details).toContain('image/png')

		const empty = await upload(t, { bytes: new Uint8Array(), name: 'empty.txt' })
		expect(empty.status).toBe(400)
		expect(empty.body.details).toContain('empty')

		const garbage = await upload(t, { bytes: binaryGarbage(20_000), name: 'data.bin' })
		expect(garbage.status).toBe(415)
		expect(garbage.body.details).toContain('application/octet-stream')

		const badMetadata = await upload(t, { bytes: png, name: 'scan.png' }, { metadata: '{"nested": {"a": 1}}' })
		expect(badMetadata.status).toBe(400)
		expect(badMetadata.body.details).toContain('metadata')
		const notJson = await upload(t, { bytes: png, name: 'scan.png' }, { metadata: '{oops' })
		expect(notJson.status).toBe(400)

		const noFile = await t.json('POST', '/v3/documents/file', { file: 'not a file' })
		expect(noFile.status).toBe(400)
		expect(await countDocuments()).toBe(documents)
		expect(storedFiles().length).toBe(files)
	})

	it('fails a zip bomb, an encrypted PDF and a malformed PDF with a reason, and keeps working', async () => {
		const hostile: [Uint8Array, string, string][] = [
			[await zipBombDocx(16), 'bomb.docx', 'zip bomb'],
			[await fixture('encrypted.pdf'), 'locked.pdf', 'encrypted'],
			[(await samplePdf('t', ['cut short'])).slice(0, 400), 'broken.pdf', 'malformed'],
		]
		const ids: string[] = []
		for (const [bytes, name] of hostile) {
			const added = await upload(t, { bytes, name }, { containerTag: 'files_hostile' })
			expect(added.status).toBe(200)
			ids.push(added.body.id)
		}
		for (const [i, [, name, reason]] of hostile.entries()) {
			const failed = await t.waitForStatus(ids[i]!)
			expect({ name, status: failed.status }).toEqual({ name, status: 'failed' })
			expect(failed.error).toContain(reason)
			const chunks = await t.json('GET', `/v3/documents/${ids[i]}/chunks`)
			expect(chunks.body.total).toBe(0)
		}
		// The worker is still there for the next document.
		const healthy = await upload(t, { bytes: new TextEncoder().encode('still alive'), name: 'ok.txt' })
		expect((await t.waitForStatus(healthy.body.id)).status).toBe('done')
		expect((await t.request('GET', '/health', { key: null })).status).toBe(200)
	})

	it('maps fields of an uploaded JSON file into metadata that filters can use', async () => {
		const order = { sku: 'TUSK-9', warehouse: { city: 'Tromsø' }, total: 120 }
		const added = await upload(
			t,
			{ bytes: new TextEncoder().encode(JSON.stringify(order)), name: 'order.json' },
			{
				containerTag: 'files_json',
				metadataFields: JSON.stringify(['sku', 'warehouse.city', 'total']),
				metadata: JSON.stringify({ total: 99 }),
			},
		)
		const done = await t.waitForStatus(added.body.id)
		expect(done.metadata).toEqual({ sku: 'TUSK-9', 'warehouse.city': 'Tromsø', total: 99 })
		const listed = await t.json('POST', '/v3/documents/list', {
			containerTags: ['files_json'],
			filters: { AND: [{ key: 'warehouse.city', value: 'Tromsø' }] },
		})
		expect(listed.body.memories.map((d: { id: string }) => d.id)).toEqual([added.body.id])
		const notJson = await upload(
			t,
			{ bytes: await fixture('ocr-invoice.png'), name: 'a.png' },
			{
				metadataFields: '["sku"]',
			},
		)
		expect(notJson.status).toBe(400)
	})
})
