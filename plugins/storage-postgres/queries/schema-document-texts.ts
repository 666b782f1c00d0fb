import type { Migration } from './schema.ts'

/**
 * A document's extracted text moves out of its row into parts of bounded size: a 50 MB text written or read as one
 * value held the embedded database (and the event loop it runs on) for seconds, and grew its heap for good. Parts
 * carry the content hash they were extracted from, so text of replaced content is never read as current.
 */
export const DOCUMENT_TEXTS_MIGRATION: Migration = {
	version: 25,
	name: 'document text in parts',
	sql: () => `
CREATE TABLE document_text_parts (
	document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
	content_hash text NOT NULL,
	part integer NOT NULL,
	content text NOT NULL,
	PRIMARY KEY (document_id, content_hash, part)
);
INSERT INTO document_text_parts (document_id, content_hash, part, content)
	SELECT id, content_hash, 0, text FROM documents WHERE text IS NOT NULL;
ALTER TABLE documents DROP COLUMN text;
`,
}
