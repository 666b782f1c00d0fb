import { extractText, getDocumentProxy, getMeta } from 'unpdf'
import { PermanentStageError } from '../../errors.ts'
import { normalizeExtractedText, shortTitle } from './text.ts'

export interface PdfText {
	text: string
	title: string | null
	pages: number
}

/**
 * The text layer of a PDF, page by page (pdf.js through unpdf). Encrypted and malformed files fail permanently; a
 * PDF without a text layer (a scan) gives no text, and the chunking stage fails it as having nothing to index.
 */
export async function pdfToText(bytes: Uint8Array): Promise<PdfText> {
	let pdf: Awaited<ReturnType<typeof getDocumentProxy>>
	try {
		// pdf.js takes over the buffer it reads and refuses Node Buffers: it gets a plain copy.
		pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, stopAtErrors: false })
	} catch (error) {
		throw describePdfError(error)
	}
	try {
		const [{ text }, meta] = await Promise.all([
			extractText(pdf, { mergePages: false }),
			getMeta(pdf).catch(() => null),
		])
		const pages = text.map((page) => normalizeExtractedText(page)).filter(Boolean)
		const info = (meta?.info ?? {}) as { Title?: unknown }
		return {
			text: pages.join('\n\n'),
			title: typeof info.Title === 'string' ? shortTitle(info.Title) : null,
			pages: text.length,
		}
	} catch (error) {
		throw describePdfError(error)
	} finally {
		await pdf.loadingTask.destroy().catch(() => {})
	}
}

function describePdfError(error: unknown): Error {
	const name = (error as { name?: string }).name
	const message = error instanceof Error ? error.message : String(error)
	if (name === 'PasswordException') return new PermanentStageError('the PDF is encrypted with a password')
	if (name === 'InvalidPDFException' || name === 'FormatError' || name === 'UnknownErrorException') {
		return new PermanentStageError(`the PDF is malformed: ${message}`)
	}
	// Anything else is pdf.js failing on its own (a TypeError, a RangeError): not something to show as the reason.
	return new PermanentStageError('the PDF could not be read (its structure is not one the PDF reader understands)')
}
