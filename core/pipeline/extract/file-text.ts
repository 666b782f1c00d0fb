import type { DocumentType } from '../../domain/types.ts'
import { PermanentStageError } from '../../errors.ts'
import { csvToText } from './csv.ts'
import { htmlToText } from './html.ts'
import { type FileKind, KINDS } from './kinds.ts'
import { officeToText } from './office.ts'
import { pdfToText } from './pdf.ts'
import { checkPdfInflatedSize } from './pdf-streams.ts'
import { plainText } from './plain-text.ts'
import { parseStructured, structuredTitle, structuredToText } from './structured.ts'
import { decodeText, normalizeExtractedText } from './text.ts'

export interface FileText {
	text: string
	title: string | null
	type: DocumentType
}

/**
 * Text of a file of a known kind other than an image. Runs in an isolated-task thread (core/jobs/isolated-task.ts):
 * parsers are CPU-heavy and a hostile file must not hold the event loop. Compressed content (PDF streams, office
 * zips) inflates to at most `maxUncompressedBytes`.
 */
export async function fileText(bytes: Uint8Array, kind: FileKind, maxUncompressedBytes: number): Promise<FileText> {
	const type = KINDS[kind].type
	switch (kind) {
		case 'pdf': {
			checkPdfInflatedSize(bytes, maxUncompressedBytes)
			const { text, title } = await pdfToText(bytes)
			if (!text) throw new PermanentStageError('the PDF has no text layer (a scan?); nothing to index')
			return { text, title, type }
		}
		case 'docx':
		case 'pptx':
		case 'xlsx':
			return { ...(await officeToText(bytes, kind, { maxUncompressedBytes })), type }
		case 'image':
			throw new PermanentStageError('images are read by OCR, not as files of text')
		default:
			return await textFile(textOf(bytes), kind, type)
	}
}

function textOf(bytes: Uint8Array): string {
	const text = decodeText(bytes)
	if (text === null) throw new PermanentStageError('the file is binary data, not text')
	return text
}

async function textFile(text: string, kind: FileKind, type: DocumentType): Promise<FileText> {
	switch (kind) {
		case 'html': {
			const page = await htmlToText(text)
			return { text: normalizeExtractedText(page.text), title: page.title, type }
		}
		case 'csv':
			return { text: normalizeExtractedText(csvToText(text)), title: null, type }
		case 'json': {
			const structured = parseStructured(text)
			if (!structured) throw new PermanentStageError('the JSON file does not hold an object or an array')
			return { text: normalizeExtractedText(structuredToText(structured)), title: structuredTitle(structured), type }
		}
		default:
			return { ...plainText(text), type }
	}
}

/** Loads the parsers in the thread ahead of the first file (about a second), so the first upload does not wait. */
export async function warm(): Promise<void> {
	await Promise.all([import('officeparser'), import('linkedom'), import('@mozilla/readability'), import('unpdf')])
}
