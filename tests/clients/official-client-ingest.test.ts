import { afterAll, beforeAll, expect, it } from 'bun:test'
import Supermemory, { toFile } from 'supermemory'
import { type ClientHarness, failure, startClientHarness } from '../../testkit/client.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { binaryGarbage, sampleDocx, samplePdf } from '../../testkit/sample-files.ts'

describeEachDriver('official supermemory client (v4): file upload and batch add', (driver) => {
	let harness: ClientHarness
	let client: Supermemory
	beforeAll(async () => {
		harness = await startClientHarness(driver, { extractor: null })
		client = harness.client
	}, 60_000)
	afterAll(() => harness.stop())
	const waitDone = (id: string) => harness.waitDone(id)

	it('uploads a PDF and a DOCX with uploadFile, with tags and metadata as the client sends them', async () => {
		const pdf = await client.documents.uploadFile({
			file: await toFile(
				await samplePdf('Pier notes', ['Lighthouse visiting hours end at dusk in winter.']),
				'pier.pdf',
				{
					type: 'application/pdf',
				},
			),
			containerTags: JSON.stringify(['client_files']),
			metadata: JSON.stringify({ kind: 'notes', year: 2024 }),
		})
		expect(pdf).toEqual({ id: expect.any(String), status: 'queued' })
		const docx = await client.documents.uploadFile({
			file: await toFile(await sampleDocx('Dock schedule', ['The ferry docks at pier four.']), 'dock.docx'),
			containerTag: 'client_files',
		})
		const pdfDone = await waitDone(pdf.id)
		expect(pdfDone).toMatchObject({
			status: 'done',
			type: 'pdf',
			title: 'Pier notes',
			metadata: { kind: 'notes', year: 2024 },
		})
		expect((await waitDone(docx.id)).status).toBe('done')
		const search = await client.search.documents({ q: 'lighthouse visiting hours', containerTags: ['client_files'] })
		expect(search.results[0]!.documentId).toBe(pdf.id)
	})

	it('surfaces a refused upload as the client’s error class', async () => {
		const error = await failure(
			client.documents.uploadFile({
				file: await toFile(binaryGarbage(2048), 'blob.bin'),
				containerTag: 'client_files',
			}),
		)
		expect(error).toBeInstanceOf(Supermemory.APIError)
		expect((error as InstanceType<typeof Supermemory.APIError>).status).toBe(415)
	})

	it('adds documents with batchAdd, objects or strings, with per-item results', async () => {
		const objects = await client.documents.batchAdd({
			containerTag: 'client_batch',
			documents: [{ content: 'Gulls nest on the north cliff.', customId: 'gulls' }, { content: '' }],
		})
		expect(objects.success).toBe(1)
		expect(objects.failed).toBe(1)
		expect(objects.results[0]).toEqual({ id: expect.any(String), status: 'queued' })
		expect(objects.results[1]).toMatchObject({ id: '', status: 'error' })
		const strings = await client.documents.batchAdd({
			containerTag: 'client_batch',
			documents: ['Puffins arrive in April.', 'Seals rest on the sandbar.'],
		})
		expect(strings.results.map((r) => r.status)).toEqual(['queued', 'queued'])
		for (const result of [...objects.results.slice(0, 1), ...strings.results]) {
			expect((await waitDone(result.id)).status).toBe('done')
		}
		const list = await client.documents.list({ containerTags: ['client_batch'] })
		expect(list.pagination.totalItems).toBe(3)
		const tooMany = await failure(
			client.documents.batchAdd({ documents: Array.from({ length: 601 }, (_, i) => `doc ${i}`) }),
		)
		expect(tooMany).toBeInstanceOf(Supermemory.BadRequestError)
	})
})
