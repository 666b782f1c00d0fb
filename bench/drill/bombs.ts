import { deflateSync } from 'node:zlib'
import { zipSync } from 'fflate'

const MiB = 1024 * 1024

/** Small files that expand enormously: what every extractor must bound. `expands` is the decompressed size. */
export function fileBombs(): { name: string; file: File; expands: number }[] {
	const spaces = 512 * MiB
	const inner = new Uint8Array(spaces).fill(0x20)
	const zip = zipSync({ 'a.txt': inner }, { level: 9 })
	const xml = new TextEncoder().encode(
		`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`,
	)
	const tail = new TextEncoder().encode('</w:t></w:r></w:p></w:body></w:document>')
	const body = new Uint8Array(xml.length + spaces + tail.length)
	body.set(xml)
	body.fill(0x41, xml.length, xml.length + spaces)
	body.set(tail, xml.length + spaces)
	const docx = zipSync(
		{
			'[Content_Types].xml': new TextEncoder().encode(
				'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
			),
			'word/document.xml': body,
		},
		{ level: 9 },
	)
	const stream = deflateSync(inner, { level: 9 })
	const pdf = pdfWithStream(stream)
	return [
		{ name: 'zip bomb (512 MiB of spaces)', file: new File([zip], 'bomb.zip'), expands: spaces },
		{ name: 'DOCX bomb (512 MiB document.xml)', file: new File([docx], 'bomb.docx'), expands: spaces },
		{ name: 'PDF bomb (FlateDecode of 512 MiB)', file: new File([pdf], 'bomb.pdf'), expands: spaces },
	]
}

/** A one-page PDF whose content stream is the given Flate data, with a correct cross-reference table. */
function pdfWithStream(stream: Uint8Array): Uint8Array {
	const encoder = new TextEncoder()
	const parts: Uint8Array[] = []
	const offsets: number[] = []
	let length = 0
	const push = (part: Uint8Array | string) => {
		const bytes = typeof part === 'string' ? encoder.encode(part) : part
		parts.push(bytes)
		length += bytes.length
	}
	push('%PDF-1.4\n')
	const object = (n: number, text: string) => {
		offsets[n] = length
		push(`${n} 0 obj\n${text}\nendobj\n`)
	}
	object(1, '<< /Type /Catalog /Pages 2 0 R >>')
	object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>')
	object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>')
	offsets[4] = length
	push(`4 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`)
	push(stream)
	push('\nendstream\nendobj\n')
	const xref = length
	push(
		`xref\n0 5\n0000000000 65535 f \n${[1, 2, 3, 4].map((n) => `${String(offsets[n]).padStart(10, '0')} 00000 n \n`).join('')}`,
	)
	push(`trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`)
	const out = new Uint8Array(length)
	let at = 0
	for (const part of parts) {
		out.set(part, at)
		at += part.length
	}
	return out
}
