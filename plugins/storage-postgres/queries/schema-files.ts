import type { Migration } from './schema.ts'

/** Version 3: the original file of an uploaded document (the bytes live in the file store, under `file_key`). */
export const DOCUMENT_FILES_MIGRATION: Migration = {
	version: 3,
	name: 'document files',
	sql: () => `
ALTER TABLE documents
	ADD COLUMN file_key text,
	ADD COLUMN file_name text,
	ADD COLUMN file_mime_type text,
	ADD COLUMN file_size bigint;
`,
}
