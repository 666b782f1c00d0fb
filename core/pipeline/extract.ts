import type { DocumentRecord, DocumentType } from '../domain/types.ts'

export interface Extracted {
	text: string
	title: string | null
	type: DocumentType
}

const TITLE_MAX = 120

/**
 * Text out of a document's content. Plain text (and, until URL fetching lands, URLs) is taken as it is;
 * the title is the first heading or the first line.
 */
export async function extractText(document: DocumentRecord): Promise<Extracted> {
	const text = document.content.replace(/\r\n?/g, '\n').trim()
	return { text, title: document.title ?? deriveTitle(text), type: document.type }
}

export function deriveTitle(text: string): string | null {
	const firstLine = text
		.split('\n')
		.map((line) => line.replace(/^#{1,6}\s+/, '').trim())
		.find((line) => line.length > 0)
	if (!firstLine) return null
	return firstLine.length <= TITLE_MAX ? firstLine : `${firstLine.slice(0, TITLE_MAX - 1).trimEnd()}…`
}
