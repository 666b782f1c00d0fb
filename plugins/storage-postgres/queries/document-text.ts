import { type DocumentType, yieldToEventLoop } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { textParam } from './params.ts'

/** Characters per stored part: one part is one statement's value, so no write or read holds the database for long. */
export const TEXT_PART_CHARS = 256 * 1024
/** Parts fetched per read statement. */
const PARTS_PER_READ = 4

/**
 * Stores the extracted text (in parts, under the content hash it came from), title and type; a title the user gave
 * wins over the extracted one. Returns the text as stored (without NUL characters, which PostgreSQL cannot hold).
 * Nothing is written when the document's content changed meanwhile.
 */
export async function setExtracted(
	db: Db,
	id: string,
	contentHash: string,
	extracted: { text: string; title: string | null; type: DocumentType; summary?: string | null },
): Promise<string> {
	const text = textParam(extracted.text)
	const updated = await db.query(
		`UPDATE documents SET title = coalesce(title, $3), type = $4, summary = $5,
			updated_at = now(), updated_seq = nextval('document_changes')
		WHERE id = $1 AND content_hash = $2 RETURNING id`,
		[id, contentHash, extracted.title, extracted.type, extracted.summary ?? null],
	)
	if (updated.length === 0) return text
	await db.query('DELETE FROM document_text_parts WHERE document_id = $1', [id])
	const parts = textParts(text)
	for (let part = 0; part < parts.length; part++) {
		if (part > 0) await yieldToEventLoop()
		await db.query(
			'INSERT INTO document_text_parts (document_id, content_hash, part, content) VALUES ($1, $2, $3, $4)',
			[id, contentHash, part, parts[part]],
		)
	}
	return text
}

/** The extracted text of the document's current content; null before extraction (or for an unknown document). */
export async function documentText(db: Db, id: string): Promise<string | null> {
	const pieces: string[] = []
	for (;;) {
		const rows = await db.query<{ content: string }>(
			`SELECT p.content FROM document_text_parts p
			JOIN documents d ON d.id = p.document_id AND d.content_hash = p.content_hash
			WHERE p.document_id = $1 AND p.part >= $2 ORDER BY p.part LIMIT ${PARTS_PER_READ}`,
			[id, pieces.length],
		)
		for (const row of rows) pieces.push(row.content)
		if (rows.length < PARTS_PER_READ) break
		await yieldToEventLoop()
	}
	return pieces.length === 0 ? null : pieces.join('')
}

/** The text cut into parts of at most TEXT_PART_CHARS, never between the two halves of a surrogate pair. */
export function textParts(text: string, size = TEXT_PART_CHARS): string[] {
	const parts: string[] = []
	for (let start = 0; start < text.length; ) {
		let end = Math.min(start + size, text.length)
		const last = text.charCodeAt(end - 1)
		if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
		parts.push(text.slice(start, end))
		start = end
	}
	return parts.length === 0 ? [''] : parts
}
