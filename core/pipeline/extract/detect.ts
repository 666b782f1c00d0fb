import {
	FILE_TYPES,
	type FileKind,
	KINDS,
	kindOfExtension,
	kindOfMime,
	kindsOfFileType,
	SUPPORTED_SUMMARY,
	TEXT_KINDS,
} from './kinds.ts'
import { decodeText } from './text.ts'

export interface DetectInput {
	bytes: Uint8Array
	/** The name it came with (upload file name, last segment of a URL). */
	fileName?: string | null
	/** The media type it was labelled with (upload part, `mimeType` field, Content-Type header). */
	declaredMime?: string | null
	/** The upload's `fileType` field. */
	fileType?: string | null
	/**
	 * Uploads are strict: a name or label that contradicts the bytes is refused. Fetched URLs are lenient, since
	 * servers label files loosely: the bytes decide.
	 */
	strict: boolean
}

export type Detection =
	| { ok: true; kind: FileKind; mime: string }
	| { ok: false; problem: 'empty' | 'unsupported' | 'mislabelled' | 'fileType'; message: string; detected: string }

const SNIFFED: Record<string, FileKind> = {
	pdf: 'pdf',
	docx: 'docx',
	pptx: 'pptx',
	xlsx: 'xlsx',
	png: 'image',
	jpg: 'image',
	webp: 'image',
	bmp: 'image',
}

/** Names for sniffed types a user may not recognise from the media type alone. */
const SNIFFED_LABELS: Record<string, string> = {
	cfb: 'an OLE compound file (a legacy .doc/.xls/.ppt, or a password-protected Office file)',
	zip: 'a zip archive',
}

/** What a file is, from its bytes first, then (for text, which bytes cannot tell apart) from its name and label. */
export async function detectFile(input: DetectInput): Promise<Detection> {
	if (input.bytes.length === 0) return { ok: false, problem: 'empty', message: 'the file is empty', detected: 'empty' }
	const { fileTypeFromBuffer } = await import('file-type')
	const sniffed = await fileTypeFromBuffer(input.bytes).catch(() => undefined)
	let kind: FileKind
	let mime: string
	if (sniffed) {
		const known = SNIFFED[sniffed.ext]
		if (!known) return unsupported(sniffed.mime, SNIFFED_LABELS[sniffed.ext])
		kind = known
		mime = sniffed.mime
	} else {
		const text = decodeText(input.bytes)
		if (text === null) return unsupported('application/octet-stream', 'binary data of no known type')
		kind = textKind(text, input)
		mime = KINDS[kind].mime
		if (kind === 'json' && !parsesAsJson(text)) {
			return mislabelled('JSON', 'text/plain', 'text that does not parse as JSON')
		}
	}
	if (input.fileType) {
		const chosen = kindOfFileType(input.fileType, kind, mime, !sniffed)
		if (!chosen.ok) return chosen
		if (chosen.kind !== kind) {
			kind = chosen.kind
			mime = KINDS[kind].mime
		}
	}
	if (input.strict) {
		const problem = contradiction(kind, mime, input)
		if (problem) return problem
	}
	return { ok: true, kind, mime }
}

function unsupported(mime: string, label?: string): Detection {
	const detected = label ? `${label}, ${mime}` : mime
	return {
		ok: false,
		problem: 'unsupported',
		detected: mime,
		message: `the file is ${detected}, which is not supported (supported: ${SUPPORTED_SUMMARY})`,
	}
}

function mislabelled(claimed: string, detectedMime: string, detectedLabel: string): Detection {
	return {
		ok: false,
		problem: 'mislabelled',
		detected: detectedMime,
		message: `the file is labelled ${claimed}, but its content is ${detectedMime} (${detectedLabel})`,
	}
}

/** A text file's kind: its label, then its name, then what the text looks like. */
function textKind(text: string, input: DetectInput): FileKind {
	const fromLabel = kindOfMime(input.declaredMime)
	if (fromLabel && TEXT_KINDS.has(fromLabel) && fromLabel !== 'text') return fromLabel
	const fromName = kindOfExtension(input.fileName)
	if (fromName && TEXT_KINDS.has(fromName) && fromName !== 'text') return fromName
	const start = text.trimStart().slice(0, 512).toLowerCase()
	if (start.startsWith('<!doctype html') || start.startsWith('<html') || /^<(head|body)[\s>]/.test(start)) return 'html'
	if ((start.startsWith('{') || start.startsWith('[')) && parsesAsJson(text)) return 'json'
	return 'text'
}

function parsesAsJson(text: string): boolean {
	try {
		const value = JSON.parse(text)
		return typeof value === 'object' && value !== null
	} catch {
		return false
	}
}

/** A label, name or fileType that names another kind than the bytes are. */
function contradiction(kind: FileKind, mime: string, input: DetectInput): Detection | null {
	const detectedLabel = kind === 'image' ? 'an image' : KINDS[kind].label
	const claims: [FileKind | null, string][] = [
		[kindOfMime(input.declaredMime), `${input.declaredMime?.split(';')[0]}`],
		[kindOfExtension(input.fileName), `"${input.fileName}"`],
	]
	for (const [claimed, how] of claims) {
		if (claimed && !compatible(claimed, kind)) return mislabelled(how, mime, detectedLabel)
	}
	return null
}

/**
 * The kind an explicit `fileType` reads the file as: it wins over the name, label and look of a text file (a CSV
 * sent as `text` is read as plain text), and must match what the bytes are for any other file.
 */
function kindOfFileType(
	fileType: string,
	detected: FileKind,
	mime: string,
	isText: boolean,
): { ok: true; kind: FileKind } | Extract<Detection, { ok: false }> {
	const allowed = kindsOfFileType(fileType) ?? []
	const refused = (message: string): Extract<Detection, { ok: false }> => ({
		ok: false,
		problem: 'fileType',
		detected: mime,
		message: `fileType "${fileType}": ${message}`,
	})
	if (allowed.length === 0) return refused(`files can be ${FILE_TYPES}`)
	const label = detected === 'image' ? 'an image' : KINDS[detected].label
	if (!isText) {
		return allowed.includes(detected) ? { ok: true, kind: detected } : refused(`the file is ${label} (${mime})`)
	}
	const textual = allowed.filter((kind) => TEXT_KINDS.has(kind))
	if (textual.length === 0) return refused(`the file is text (${label}, ${mime}), which cannot be read as ${fileType}`)
	const type = KINDS[textual[0]!].type
	return { ok: true, kind: textual.includes(detected) && KINDS[detected].type === type ? detected : textual[0]! }
}

/** Text kinds cannot be told apart by their bytes, so any text label fits text content (JSON is checked apart). */
function compatible(claimed: FileKind, actual: FileKind): boolean {
	if (claimed === actual) return true
	return TEXT_KINDS.has(claimed) && TEXT_KINDS.has(actual) && claimed !== 'json'
}
