import type { DocumentRecord, DocumentType } from '../domain/types.ts'
import type { FileStore } from '../plugins/files.ts'
import { embeddedChat, renderEmbeddedChat } from './extract/chat-messages.ts'
import { csvToText } from './extract/csv.ts'
import { detectFile } from './extract/detect.ts'
import { FetchError, type FetchPolicy, fetchUrl } from './extract/fetch-url.ts'
import { htmlToText } from './extract/html.ts'
import type { Ocr } from './extract/image.ts'
import { type FileKind, KINDS } from './extract/kinds.ts'
import { officeToText } from './extract/office.ts'
import { pdfToText } from './extract/pdf.ts'
import { parseStructured, structuredTitle, structuredToText } from './extract/structured.ts'
import { decodeText, deriveTitle, normaliseText, titleFromFileName } from './extract/text.ts'
import { PermanentStageError } from './stage-error.ts'

export { deriveTitle } from './extract/text.ts'

export interface Extracted {
	text: string
	title: string | null
	type: DocumentType
}

/** What extracting needs beyond the document: the file store, the URL fetch policy, parser limits and OCR. */
export interface ExtractionDeps {
	files: FileStore
	fetchPolicy: FetchPolicy
	maxUncompressedBytes: number
	ocr: Ocr
}

/** Content that is one URL (any scheme, so a `file://` URL is refused rather than indexed as text). */
const URL_CONTENT = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i

export function urlIn(content: string): string | null {
	const trimmed = content.trim()
	return URL_CONTENT.test(trimmed) ? trimmed : null
}

/**
 * Text out of a document: its uploaded file, the resource its URL names, its structured content (a JSON object or
 * array), or its text as it is. The document type says what it turned out to be (pdf, webpage, image, ...).
 * Failures retrying cannot fix throw PermanentStageError; others (a server down, a timeout) are retried.
 */
export async function extractText(document: DocumentRecord, deps?: ExtractionDeps): Promise<Extracted> {
	if (document.file) {
		const { files } = required(deps)
		const bytes = await files.get(document.file.key)
		// Retried: a re-upload may have replaced the file since this attempt read the document.
		if (!bytes) throw new Error('the original file is missing from the file store')
		const detection = await detectFile({
			bytes,
			fileName: document.file.name,
			declaredMime: document.file.mimeType,
			strict: false,
		})
		if (!detection.ok) throw new PermanentStageError(detection.message)
		return withTitle(document, await extractBytes(bytes, detection.kind, required(deps)), document.file.name)
	}
	const url = urlIn(document.content)
	if (url) return withTitle(document, await extractUrl(url, required(deps)), null)
	const structured = parseStructured(document.content)
	if (structured) {
		const text = normaliseText(structuredToText(structured))
		return withTitle(document, { text, title: structuredTitle(structured), type: document.type }, null)
	}
	return withTitle(document, { ...plainText(document.content), type: document.type }, null)
}

/** Text as it is, or the transcript of a chat it holds as JSON after a preamble (chat-messages.ts). */
function plainText(text: string): { text: string; title: string | null } {
	const chat = embeddedChat(text)
	if (!chat) return { text: normaliseText(text), title: null }
	return { text: normaliseText(renderEmbeddedChat(chat)), title: deriveTitle(chat.preamble) }
}

function required(deps: ExtractionDeps | undefined): ExtractionDeps {
	if (!deps) throw new PermanentStageError('this worker cannot read files or URLs (no extraction dependencies)')
	return deps
}

/** A title the user gave wins; then the source's own; then the first heading or line; then the file name. */
function withTitle(document: DocumentRecord, extracted: Extracted, fileName: string | null): Extracted {
	return {
		...extracted,
		title: document.title ?? extracted.title ?? deriveTitle(extracted.text) ?? titleFromFileName(fileName),
	}
}

async function extractUrl(url: string, deps: ExtractionDeps): Promise<Extracted> {
	let fetched: Awaited<ReturnType<typeof fetchUrl>>
	try {
		fetched = await fetchUrl(url, deps.fetchPolicy)
	} catch (error) {
		if (error instanceof FetchError && error.permanent) throw new PermanentStageError(error.message)
		throw error
	}
	const detection = await detectFile({
		bytes: fetched.body,
		fileName: fetched.fileName,
		declaredMime: fetched.contentType,
		strict: false,
	})
	if (!detection.ok) throw new PermanentStageError(`${fetched.url}: ${detection.message}`)
	return extractBytes(fetched.body, detection.kind, deps)
}

/** Text of a file of a known kind. */
export async function extractBytes(bytes: Uint8Array, kind: FileKind, deps: ExtractionDeps): Promise<Extracted> {
	const type = KINDS[kind].type
	switch (kind) {
		case 'pdf': {
			const { text, title } = await pdfToText(bytes)
			if (!text) throw new PermanentStageError('the PDF has no text layer (a scan?); nothing to index')
			return { text, title, type }
		}
		case 'docx':
		case 'pptx':
		case 'xlsx':
			return { ...(await officeToText(bytes, kind, deps)), type }
		case 'image': {
			const text = await deps.ocr.recognize(bytes)
			if (!text) throw new PermanentStageError('no text was found in the image')
			return { text, title: null, type }
		}
		default:
			return await textFile(textOf(bytes), kind, type)
	}
}

function textOf(bytes: Uint8Array): string {
	const text = decodeText(bytes)
	if (text === null) throw new PermanentStageError('the file is binary data, not text')
	return text
}

async function textFile(text: string, kind: FileKind, type: DocumentType): Promise<Extracted> {
	switch (kind) {
		case 'html': {
			const page = await htmlToText(text)
			return { text: normaliseText(page.text), title: page.title, type }
		}
		case 'csv':
			return { text: normaliseText(csvToText(text)), title: null, type }
		case 'json': {
			const structured = parseStructured(text)
			if (!structured) throw new PermanentStageError('the JSON file does not hold an object or an array')
			return { text: normaliseText(structuredToText(structured)), title: structuredTitle(structured), type }
		}
		default:
			return { ...plainText(text), type }
	}
}
