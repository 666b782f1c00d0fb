import type { Migration } from './schema.ts'

/** Fingerprints of each document's distinct lines, to tell boilerplate repeated across a container. */
export const DOCUMENT_LINES_MIGRATION: Migration = {
	version: 24,
	name: 'document line fingerprints',
	sql: () => `
CREATE TABLE document_lines (
	fingerprint text NOT NULL,
	document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
	PRIMARY KEY (fingerprint, document_id)
);
CREATE INDEX document_lines_document_idx ON document_lines (document_id);
`,
}
