import { afterAll, describe, expect, it } from 'bun:test'
import { PermanentStageError } from '../../core/errors.ts'
import { csvToText } from '../../core/pipeline/extract/csv.ts'
import { detectFile } from '../../core/pipeline/extract/detect.ts'
import { htmlToText } from '../../core/pipeline/extract/html.ts'
import { createOcr } from '../../core/pipeline/extract/image.ts'
import {
	metadataFromFields,
	parseStructured,
	structuredTitle,
	structuredToText,
} from '../../core/pipeline/extract/structured.ts'
import { type ExtractionDeps, extractBytes } from '../../core/pipeline/extract.ts'
import { parseTranscript } from '../../core/pipeline/transcript.ts'
import {
	binaryGarbage,
	fixture,
	sampleDocx,
	samplePdf,
	samplePptx,
	sampleXlsx,
	zipBombDocx,
} from '../../testkit/sample-files.ts'

const ocr = createOcr()
afterAll(() => ocr.close())
/** Only what extractBytes reads: the zip limit and OCR (no file store, no fetching). */
const deps = { maxUncompressedBytes: 16 * 1024 * 1024, ocr } as unknown as ExtractionDeps

const encode = (text: string) => new TextEncoder().encode(text)

async function failure(promise: Promise<unknown>): Promise<Error> {
	try {
		await promise
	} catch (error) {
		return error as Error
	}
	throw new Error('it succeeded')
}

describe('detectFile', () => {
	it('knows binary formats by their bytes', async () => {
		const cases: [Uint8Array, string, string][] = [
			[await samplePdf('t', ['x']), 'pdf', 'application/pdf'],
			[await sampleDocx('t', ['x']), 'docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
			[await samplePptx([['x']]), 'pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
			[
				sampleXlsx([{ name: 's', rows: [['x']] }]),
				'xlsx',
				'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
			],
			[await fixture('ocr-invoice.png'), 'image', 'image/png'],
		]
		for (const [bytes, kind, mime] of cases) {
			expect(await detectFile({ bytes, fileName: 'upload', strict: true })).toEqual({ ok: true, kind, mime } as never)
		}
	})

	it('tells text kinds apart by label, then name, then content', async () => {
		const kind = async (text: string, fileName: string, declaredMime?: string) =>
			((await detectFile({ bytes: encode(text), fileName, declaredMime, strict: true })) as { kind?: string }).kind
		expect(await kind('a,b\n1,2', 'data.csv')).toBe('csv')
		expect(await kind('# Title\n\ntext', 'notes.md')).toBe('markdown')
		expect(await kind('just words', 'notes', 'text/markdown')).toBe('markdown')
		expect(await kind('<!doctype html><html><body><p>hi</p></body></html>', 'page')).toBe('html')
		expect(await kind('{"a": 1}', 'blob')).toBe('json')
		expect(await kind('plain words', 'blob')).toBe('text')
	})

	it('refuses an empty file', async () => {
		expect(await detectFile({ bytes: new Uint8Array(), fileName: 'a.txt', strict: true })).toMatchObject({
			ok: false,
			problem: 'empty',
		})
	})

	it('refuses binary garbage and unsupported formats, naming what it found', async () => {
		const garbage = await detectFile({ bytes: binaryGarbage(4096), fileName: 'x.bin', strict: true })
		expect(garbage).toMatchObject({ ok: false, problem: 'unsupported', detected: 'application/octet-stream' })
		const { zipSync } = await import('fflate')
		const zip = await detectFile({ bytes: zipSync({ 'a.txt': encode('hi') }), fileName: 'a.zip', strict: true })
		expect(zip).toMatchObject({ ok: false, problem: 'unsupported', detected: 'application/zip' })
		expect((zip as { message: string }).message).toContain('application/zip')
	})

	it('refuses a file whose name or label contradicts its bytes, when strict', async () => {
		const png = await fixture('ocr-invoice.png')
		const renamed = await detectFile({ bytes: png, fileName: 'report.pdf', strict: true })
		expect(renamed).toMatchObject({ ok: false, problem: 'mislabelled', detected: 'image/png' })
		const relabelled = await detectFile({ bytes: png, fileName: 'scan', declaredMime: 'application/pdf', strict: true })
		expect((relabelled as { message: string }).message).toContain('image/png')
		const pdfAsText = await detectFile({ bytes: await samplePdf('t', ['x']), fileName: 'notes.txt', strict: true })
		expect(pdfAsText).toMatchObject({ ok: false, problem: 'mislabelled', detected: 'application/pdf' })
		const badJson = await detectFile({ bytes: encode('{"a": '), fileName: 'data.json', strict: true })
		expect(badJson).toMatchObject({ ok: false, problem: 'mislabelled' })
		const forced = await detectFile({ bytes: png, fileName: 'scan.png', fileType: 'pdf', strict: true })
		expect(forced).toMatchObject({ ok: false, problem: 'fileType', detected: 'image/png' })
		// A fetched file is judged by its bytes: servers label loosely.
		expect(await detectFile({ bytes: png, fileName: 'x.pdf', declaredMime: 'text/html', strict: false })).toMatchObject(
			{
				ok: true,
				kind: 'image',
			},
		)
	})
})

describe('extractBytes', () => {
	it('reads the text layer and title of a PDF', async () => {
		const bytes = await samplePdf('Lighthouse log', ['The keeper counted 42 ships in March.', 'Second line.'])
		const extracted = await extractBytes(bytes, 'pdf', deps)
		expect(extracted).toMatchObject({ type: 'pdf', title: 'Lighthouse log' })
		expect(extracted.text).toContain('The keeper counted 42 ships in March.')
	})

	it('fails an encrypted PDF and a malformed one permanently, with the reason', async () => {
		const encrypted = await failure(extractBytes(await fixture('encrypted.pdf'), 'pdf', deps))
		expect(encrypted).toBeInstanceOf(PermanentStageError)
		expect(encrypted.message).toContain('encrypted')
		const truncated = (await samplePdf('t', ['some text'])).slice(0, 300)
		const malformed = await failure(extractBytes(truncated, 'pdf', deps))
		expect(malformed).toBeInstanceOf(PermanentStageError)
		expect(malformed.message).toContain('malformed')
	})

	it('keeps the headings of a DOCX as markdown headings', async () => {
		const bytes = await sampleDocx('Garden notes', [
			'Tomatoes need six hours of sun.',
			'## Watering',
			'Water basil daily.',
		])
		const extracted = await extractBytes(bytes, 'docx', deps)
		expect(extracted.type).toBe('google_doc')
		expect(extracted.text).toBe(
			'# Garden notes\n\nTomatoes need six hours of sun.\n\n## Watering\n\nWater basil daily.',
		)
	})

	it('reads slides as sections and sheet rows as header: value records', async () => {
		const slides = await extractBytes(await samplePptx([['Roadmap 2025', 'Launch the comet telescope']]), 'pptx', deps)
		expect(slides.type).toBe('google_slide')
		expect(slides.text).toContain('## Slide 1')
		expect(slides.text).toContain('Launch the comet telescope')
		const sheet = sampleXlsx([
			{
				name: 'Inventory',
				rows: [
					['Item', 'Count'],
					['Walrus tusks', 12],
				],
			},
		])
		const rows = await extractBytes(sheet, 'xlsx', deps)
		expect(rows).toMatchObject({ type: 'google_sheet', text: '## Inventory\n\nItem: Walrus tusks; Count: 12' })
	})

	it('fails a zip bomb shaped as a DOCX without inflating it', async () => {
		const bomb = await zipBombDocx(24)
		expect(bomb.length).toBeLessThan(1024 * 1024)
		const error = await failure(extractBytes(bomb, 'docx', deps))
		expect(error).toBeInstanceOf(PermanentStageError)
		expect(error.message).toContain('zip bomb')
	})

	it('reads the text in an image with offline OCR', async () => {
		const extracted = await extractBytes(await fixture('ocr-invoice.png'), 'image', deps)
		expect(extracted).toMatchObject({ type: 'image', text: 'Invoice 4471 paid' })
	})

	it('fails an image whose header is broken', async () => {
		const png = await fixture('ocr-invoice.png')
		const broken = png.slice(0, 40)
		expect(await failure(extractBytes(broken, 'image', deps))).toBeInstanceOf(PermanentStageError)
	})

	it('reads CSV, JSON and HTML files through their own readers', async () => {
		const csv = await extractBytes(encode('name;city\nAda;London\nAlan;Wilmslow'), 'csv', deps)
		expect(csv.text).toBe('name: Ada; city: London\nname: Alan; city: Wilmslow')
		const json = await extractBytes(encode('{"title":"Order 7","items":[{"sku":"A1"}]}'), 'json', deps)
		expect(json).toMatchObject({ title: 'Order 7', text: 'title: Order 7\nitems:\n  - sku: A1' })
		const html = await extractBytes(
			encode('<html><head><title>Hi</title></head><body><p>Hello</p></body></html>'),
			'html',
			deps,
		)
		expect(html).toMatchObject({ type: 'webpage', title: 'Hi', text: 'Hello' })
	})
})

describe('htmlToText', () => {
	it('keeps the article and its structure, and drops navigation, footer and scripts', async () => {
		const paragraph = (words: string) =>
			`<p>${words} ${'The keepers wrote down every ship, storm and visitor. '.repeat(4)}</p>`
		const page = `<!doctype html><html><head><title>Keepers | Coast News</title></head><body>
			<nav><a href="/">Home</a> <a href="/subscribe">Subscribe now</a></nav>
			<article><h1>Lighthouse keepers of Maine</h1>${paragraph('Pemaquid Point logged 42 ships.')}
			<h2>Daily routine</h2>${paragraph('Every evening the lamp is trimmed.')}<ul><li>Trim the wick</li><li>Polish the lens</li></ul></article>
			<footer>Cookie policy</footer><script>alert('x')</script></body></html>`
		const { text, title } = await htmlToText(page)
		expect(title).toBe('Keepers | Coast News')
		expect(text).toContain('Pemaquid Point logged 42 ships.')
		expect(text).toContain('## Daily routine')
		expect(text).toContain('- Trim the wick\n- Polish the lens')
		expect(text).not.toContain('Subscribe now')
		expect(text).not.toContain('Cookie policy')
		expect(text).not.toContain('alert')
	})
})

describe('structured content', () => {
	const order = {
		title: 'Order 1042',
		customer: { name: 'Ada Lovelace', city: 'London' },
		items: [
			{ sku: 'A1', qty: 2 },
			{ sku: 'B7', qty: 1 },
		],
		tags: ['priority', 'gift'],
		paid: true,
	}

	it('parses JSON objects and arrays, and nothing else', () => {
		expect(parseStructured(JSON.stringify(order))).toEqual(order)
		expect(parseStructured(' [1, 2] ')).toEqual([1, 2])
		expect(parseStructured('"just a string"')).toBeNull()
		expect(parseStructured('{not json}')).toBeNull()
		expect(parseStructured('Plain text {with braces}')).toBeNull()
	})

	it('renders readable text that keeps keys and nesting', () => {
		expect(structuredToText(order)).toBe(
			[
				'title: Order 1042',
				'customer:',
				'  name: Ada Lovelace',
				'  city: London',
				'items:',
				'  - sku: A1',
				'    qty: 2',
				'  - sku: B7',
				'    qty: 1',
				'tags:',
				'  - priority',
				'  - gift',
				'paid: true',
			].join('\n'),
		)
		expect(structuredTitle(order)).toBe('Order 1042')
	})

	it('renders an array of messages as a transcript', () => {
		const text = structuredToText([
			{ role: 'user', content: 'I moved to Lisbon last spring.' },
			{ role: 'assistant', content: 'How do you like it?' },
		])
		expect(text).toBe('user: I moved to Lisbon last spring.\nassistant: How do you like it?')
		expect(parseTranscript(text)?.turns).toHaveLength(2)
	})

	it('maps fields into metadata by path, leaving out missing paths and objects', () => {
		expect(
			metadataFromFields(order, ['title', 'customer.city', 'items.1.qty', 'tags', 'paid', 'customer', 'nope']),
		).toEqual({
			title: 'Order 1042',
			'customer.city': 'London',
			'items.1.qty': 1,
			tags: ['priority', 'gift'],
			paid: true,
		})
	})
})

describe('csvToText', () => {
	it('keeps a table without a header row as rows of cells', () => {
		expect(csvToText('1,2\n3,4')).toBe('1 | 2\n3 | 4')
	})
	it('reads quoted fields with commas and newlines', () => {
		expect(csvToText('name,note\n"Smith, J","line one\nline two"')).toBe('name: Smith, J; note: line one\nline two')
	})
})
