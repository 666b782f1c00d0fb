import { createDeflate } from 'node:zlib'
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx'
import { strToU8, unzipSync, Zip, ZipDeflate, zipSync } from 'fflate'
import { PDFDocument, PDFName, PDFRawStream, StandardFonts } from 'pdf-lib'
import PptxGenJS from 'pptxgenjs'

/** Real sample files, made by the libraries that write these formats (or, for XLSX, from its parts). */

export const FIXTURES = `${import.meta.dir}/fixtures`

export async function fixture(name: string): Promise<Uint8Array> {
	return new Uint8Array(await Bun.file(`${FIXTURES}/${name}`).arrayBuffer())
}

/** A PDF with a text layer: a title in its metadata and one line per entry of `lines`. */
export async function samplePdf(title: string, lines: string[]): Promise<Uint8Array> {
	const pdf = await PDFDocument.create()
	const font = await pdf.embedFont(StandardFonts.Helvetica)
	const page = pdf.addPage()
	lines.forEach((line, i) => {
		page.drawText(line, { x: 50, y: 740 - i * 20, size: 12, font })
	})
	pdf.setTitle(title)
	return pdf.save()
}

/** A DOCX: a heading, then paragraphs (a `## ` prefix makes a second-level heading). */
export async function sampleDocx(heading: string, paragraphs: string[]): Promise<Uint8Array> {
	const doc = new Document({
		sections: [
			{
				children: [
					new Paragraph({ text: heading, heading: HeadingLevel.HEADING_1 }),
					...paragraphs.map((text) =>
						text.startsWith('## ')
							? new Paragraph({ text: text.slice(3), heading: HeadingLevel.HEADING_2 })
							: new Paragraph({ children: [new TextRun(text)] }),
					),
				],
			},
		],
	})
	return new Uint8Array(await Packer.toBuffer(doc))
}

/** A PPTX with one slide per entry, each a list of text boxes. */
export async function samplePptx(slides: string[][]): Promise<Uint8Array> {
	const pptx = new PptxGenJS()
	for (const texts of slides) {
		const slide = pptx.addSlide()
		texts.forEach((text, i) => {
			slide.addText(text, { x: 0.5, y: 0.5 + i, w: 9, h: 0.8, fontSize: 20 })
		})
	}
	return new Uint8Array((await pptx.write({ outputType: 'nodebuffer' })) as Buffer)
}

const xml = (body: string) => strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${body}`)
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** A minimal XLSX (Office Open XML spreadsheet) with inline strings and numbers. */
export function sampleXlsx(sheets: { name: string; rows: (string | number)[][] }[]): Uint8Array {
	const column = (i: number) => String.fromCharCode(65 + i)
	const files: Record<string, Uint8Array> = {
		'[Content_Types].xml': xml(
			`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')}</Types>`,
		),
		'_rels/.rels': xml(
			'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
		),
		'xl/workbook.xml': xml(
			`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${sheets.map((sheet, i) => `<sheet name="${escapeXml(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
		),
		'xl/_rels/workbook.xml.rels': xml(
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}</Relationships>`,
		),
	}
	sheets.forEach((sheet, i) => {
		const rows = sheet.rows
			.map(
				(row, r) =>
					`<row r="${r + 1}">${row
						.map((value, c) =>
							typeof value === 'number'
								? `<c r="${column(c)}${r + 1}"><v>${value}</v></c>`
								: `<c r="${column(c)}${r + 1}" t="inlineStr"><is><t>${escapeXml(value)}</t></is></c>`,
						)
						.join('')}</row>`,
			)
			.join('')
		files[`xl/worksheets/sheet${i + 1}.xml`] = xml(
			`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`,
		)
	})
	return zipSync(files)
}

/**
 * A zip bomb shaped as a DOCX: a real document whose main part is padded with `inflatedMiB` MiB of spaces, which
 * deflate to a few KB. The padding is streamed in, so making it never holds the inflated size in memory.
 */
export async function zipBombDocx(inflatedMiB: number): Promise<Uint8Array> {
	const parts = unzipSync(await sampleDocx('Harmless title', ['Nothing to see here.']))
	const chunks: Uint8Array[] = []
	const zip = new Zip((error, data) => {
		if (error) throw error
		chunks.push(data)
	})
	for (const [name, data] of Object.entries(parts)) {
		const entry = new ZipDeflate(name, { level: 6 })
		zip.add(entry)
		if (name !== 'word/document.xml') {
			entry.push(data, true)
			continue
		}
		const text = new TextDecoder().decode(data)
		const cut = text.indexOf('</w:body>')
		entry.push(strToU8(text.slice(0, cut)))
		const padding = new Uint8Array(1024 * 1024).fill(0x20)
		for (let i = 0; i < inflatedMiB; i++) entry.push(padding)
		entry.push(strToU8(text.slice(cut)), true)
	}
	zip.end()
	return Buffer.concat(chunks)
}

/** Bytes no format claims. */
export function binaryGarbage(size: number): Uint8Array {
	const bytes = new Uint8Array(size)
	// A fixed generator, so the garbage is the same on every run (and never accidentally starts like a known format).
	let state = 0x2545f491
	for (let i = 0; i < size; i++) {
		state ^= state << 13
		state ^= state >>> 17
		state ^= state << 5
		bytes[i] = state & 0xff
	}
	bytes[0] = 0x00
	return bytes
}

/**
 * A small PDF whose page content is one Flate stream inflating to `inflatedBytes` of spaces (a decompression bomb):
 * about 1 KB per MiB inflated. The zlib data is built by streaming one MiB of spaces through the compressor.
 */
export async function pdfBomb(inflatedBytes: number): Promise<Uint8Array> {
	const deflater = createDeflate({ level: 9 })
	const parts: Buffer[] = []
	deflater.on('data', (part: Buffer) => parts.push(part))
	const ended = new Promise((resolve) => deflater.on('end', resolve))
	const mib = Buffer.alloc(1024 * 1024, 32)
	for (let written = 0; written < inflatedBytes; written += mib.length) {
		if (!deflater.write(mib)) await new Promise((resolve) => deflater.once('drain', resolve))
	}
	deflater.end()
	await ended
	const pdf = await PDFDocument.create()
	const page = pdf.addPage()
	const stream = PDFRawStream.of(
		pdf.context.obj({ Filter: 'FlateDecode', Length: parts.reduce((sum, part) => sum + part.length, 0) }),
		new Uint8Array(Buffer.concat(parts)),
	)
	page.node.set(PDFName.of('Contents'), pdf.context.register(stream))
	return pdf.save({ useObjectStreams: false })
}
