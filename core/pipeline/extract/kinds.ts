import type { DocumentType } from '../../domain/types.ts'

/** What the extracting stage can read. */
export type FileKind = 'pdf' | 'docx' | 'pptx' | 'xlsx' | 'csv' | 'html' | 'markdown' | 'text' | 'json' | 'image'

interface KindInfo {
	label: string
	/** The media type recorded for it (images keep their own). */
	mime: string
	/** The document type it gives (the published API's enum). */
	type: DocumentType
	extensions: string[]
	/** Media types that name it. */
	mimes: string[]
}

export const KINDS: Record<FileKind, KindInfo> = {
	pdf: { label: 'PDF', mime: 'application/pdf', type: 'pdf', extensions: ['pdf'], mimes: ['application/pdf'] },
	docx: {
		label: 'Word document (DOCX)',
		mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
		type: 'google_doc',
		extensions: ['docx'],
		mimes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
	},
	pptx: {
		label: 'PowerPoint presentation (PPTX)',
		mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
		type: 'google_slide',
		extensions: ['pptx'],
		mimes: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
	},
	xlsx: {
		label: 'Excel workbook (XLSX)',
		mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
		type: 'google_sheet',
		extensions: ['xlsx'],
		mimes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
	},
	csv: {
		label: 'CSV',
		mime: 'text/csv',
		type: 'google_sheet',
		extensions: ['csv'],
		mimes: ['text/csv', 'application/csv', 'text/comma-separated-values'],
	},
	html: {
		label: 'HTML',
		mime: 'text/html',
		type: 'webpage',
		extensions: ['html', 'htm', 'xhtml'],
		mimes: ['text/html', 'application/xhtml+xml'],
	},
	markdown: {
		label: 'Markdown',
		mime: 'text/markdown',
		type: 'text',
		extensions: ['md', 'markdown', 'mdx'],
		mimes: ['text/markdown', 'text/x-markdown'],
	},
	text: {
		label: 'plain text',
		mime: 'text/plain',
		type: 'text',
		extensions: ['txt', 'text', 'log'],
		mimes: ['text/plain'],
	},
	json: {
		label: 'JSON',
		mime: 'application/json',
		type: 'text',
		extensions: ['json'],
		mimes: ['application/json', 'text/json'],
	},
	image: {
		label: 'image (PNG, JPEG, WebP or BMP)',
		mime: 'image/png',
		type: 'image',
		extensions: ['png', 'jpg', 'jpeg', 'webp', 'bmp'],
		mimes: ['image/png', 'image/jpeg', 'image/webp', 'image/bmp', 'image/x-ms-bmp'],
	},
}

/** Kinds read as text; among them the bytes cannot tell one from another, so the name and label decide. */
export const TEXT_KINDS = new Set<FileKind>(['csv', 'html', 'markdown', 'text', 'json'])

export const SUPPORTED_SUMMARY =
	'PDF, DOCX, PPTX, XLSX, CSV, HTML, Markdown, plain text, JSON and images (PNG, JPEG, WebP, BMP)'

/** The kind a media type names, ignoring parameters; null for a type that claims nothing we know. */
export function kindOfMime(mime: string | null | undefined): FileKind | null {
	const bare = mime?.split(';')[0]?.trim().toLowerCase()
	if (!bare) return null
	for (const [kind, info] of Object.entries(KINDS) as [FileKind, KindInfo][]) {
		if (info.mimes.includes(bare)) return kind
	}
	if (bare.endsWith('+json')) return 'json'
	return null
}

export function extensionOf(name: string | null | undefined): string | null {
	const match = /\.([A-Za-z0-9]{1,10})$/.exec(name ?? '')
	return match ? match[1]!.toLowerCase() : null
}

export function kindOfExtension(name: string | null | undefined): FileKind | null {
	const extension = extensionOf(name)
	if (!extension) return null
	for (const [kind, info] of Object.entries(KINDS) as [FileKind, KindInfo][]) {
		if (info.extensions.includes(extension)) return kind
	}
	return null
}

/** The `fileType` values an upload may give. */
export const FILE_TYPES =
	'pdf, image, webpage, google_doc, google_slide, google_sheet, text, notion_doc or github_markdown'

/** The upload field `fileType` (a document type) as the kinds it allows, the one text is read as first. */
export function kindsOfFileType(fileType: string | null | undefined): FileKind[] | null {
	switch (fileType) {
		case undefined:
		case null:
		case '':
			return null
		case 'pdf':
			return ['pdf']
		case 'image':
			return ['image']
		case 'webpage':
			return ['html']
		case 'google_doc':
			return ['docx']
		case 'google_slide':
			return ['pptx']
		case 'google_sheet':
			return ['csv', 'xlsx']
		case 'text':
		case 'notion_doc':
		case 'github_markdown':
			return ['text', 'markdown', 'json', 'csv', 'html']
		default:
			return []
	}
}
