import type { DocumentRecord, DocumentType } from '../domain/types.ts'
import { PermanentStageError, StageError } from '../errors.ts'
import { type IsolationLimits, runIsolated } from '../jobs/isolated-task.ts'
import type { FileStore } from '../plugins/files.ts'
import { detectFile } from './extract/detect.ts'
import { FetchError, type FetchPolicy, fetchUrl } from './extract/fetch-url.ts'
import type { Ocr } from './extract/image.ts'
import { type FileKind, KINDS } from './extract/kinds.ts'
import { plainText } from './extract/plain-text.ts'
import { parseStructured, structuredTitle, structuredToText } from './extract/structured.ts'
import { deriveTitle, normalizeExtractedText, titleFromFileName } from './extract/text.ts'

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
	/** The document's time and memory budget for parsing; none: unbounded (tests, tools). */
	limits?: IsolationLimits
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
		if (!bytes) throw new StageError('the original file is missing from the file store')
		const file = { bytes, fileName: document.file.name, declaredMime: document.file.mimeType, strict: false }
		// Read as the type the upload settled on (an explicit fileType included); by the bytes if they no longer fit it.
		const typed = await detectFile({ ...file, fileType: document.type })
		const detection = typed.ok ? typed : await detectFile(file)
		if (!detection.ok) throw new PermanentStageError(detection.message)
		return withTitle(document, await extractBytes(bytes, detection.kind, required(deps)), document.file.name)
	}
	const url = urlIn(document.content)
	if (url) return withTitle(document, await extractUrl(url, required(deps)), null)
	const structured = parseStructured(document.content)
	if (structured) {
		const text = normalizeExtractedText(structuredToText(structured))
		return withTitle(document, { text, title: structuredTitle(structured), type: document.type }, null)
	}
	return withTitle(document, { ...plainText(document.content), type: document.type }, null)
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

/** Text of a file of a known kind: parsed in a worker thread under the limits (OCR runs in its own workers). */
export async function extractBytes(bytes: Uint8Array, kind: FileKind, deps: ExtractionDeps): Promise<Extracted> {
	if (kind === 'image') {
		const text = await deps.ocr.recognize(bytes)
		if (!text) throw new PermanentStageError('no text was found in the image')
		return { text, title: null, type: KINDS[kind].type }
	}
	// A thread that parsed a large file is ended afterwards, so the memory its heap grew to is returned.
	const limits = { ...deps.limits, endThread: bytes.length > LARGE_FILE_BYTES }
	return runIsolated<Extracted>(FILE_TEXT, 'fileText', [bytes, kind, deps.maxUncompressedBytes], limits)
}

const LARGE_FILE_BYTES = 4 * 1024 * 1024

const FILE_TEXT = new URL('./extract/file-text.ts', import.meta.url).href

/** Loads the file parsers in their worker thread now, so the first upload does not wait for them. */
export function warmFileParsers(): Promise<void> {
	return runIsolated(FILE_TEXT, 'warm', [], {})
}
