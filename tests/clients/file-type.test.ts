import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import Supermemory, { toFile } from 'supermemory'
import { type ClientHarness, failure, startClientHarness } from '../../testkit/client.ts'

const CSV = 'name,team\nAda,platform\nLin,billing\n'

describe('an upload with an explicit fileType', () => {
	let harness: ClientHarness
	beforeAll(async () => {
		harness = await startClientHarness('pglite', { extractor: null })
	}, 60_000)
	afterAll(() => harness.stop())

	const csvFile = () => toFile(Buffer.from(CSV), 'people.csv', { type: 'text/csv' })

	it('reads a CSV sent as text as plain text, not as a sheet', async () => {
		const uploaded = await harness.client.documents.uploadFile({
			file: await csvFile(),
			fileType: 'text',
			containerTags: 'file_types',
		})
		const document = await harness.waitDone(uploaded.id)
		expect(document.type).toBe('text')
		expect(document.content).toBe(CSV.trim())
	})

	it('still reads a CSV as a sheet without fileType, or with google_sheet', async () => {
		for (const fileType of [undefined, 'google_sheet']) {
			const uploaded = await harness.client.documents.uploadFile({
				file: await csvFile(),
				containerTags: 'file_types',
				...(fileType ? { fileType } : {}),
			})
			expect((await harness.waitDone(uploaded.id)).type).toBe('google_sheet')
		}
	})

	it('refuses with 400 saying why when the content cannot be read that way', async () => {
		const asPdf = await failure(
			harness.client.documents.uploadFile({ file: await csvFile(), fileType: 'pdf', containerTags: 'file_types' }),
		)
		expect(asPdf).toBeInstanceOf(Supermemory.BadRequestError)
		expect((asPdf as InstanceType<typeof Supermemory.BadRequestError>).error).toMatchObject({
			details: 'fileType "pdf": the file is text (CSV, text/csv), which cannot be read as pdf',
		})
		const unknown = await failure(
			harness.client.documents.uploadFile({
				file: await csvFile(),
				fileType: 'spreadsheet',
				containerTags: 'file_types',
			}),
		)
		expect(unknown).toBeInstanceOf(Supermemory.BadRequestError)
		expect((unknown as InstanceType<typeof Supermemory.BadRequestError>).error).toMatchObject({
			details: expect.stringContaining('fileType "spreadsheet": files can be pdf, image'),
		})
	})
})
