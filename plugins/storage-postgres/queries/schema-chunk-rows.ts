import type { Migration } from './schema.ts'

/**
 * A chunk of the chunker's default size (1,000 characters, its tsvector and a local-embedder vector: about 2.4 KB)
 * was over PostgreSQL's 2 KB TOAST threshold, so its tsvector went to the TOAST table and the full-text search paid
 * a TOAST lookup for every row it ranked. Rows now stay in the table up to a page (8160 bytes, the most allowed).
 * Rows written before keep their TOAST until rewritten (`VACUUM FULL chunks`; see docs/operations.md).
 */
export const CHUNK_ROWS_INLINE_MIGRATION: Migration = {
	version: 30,
	name: 'chunk rows inline',
	sql: () => 'ALTER TABLE chunks SET (toast_tuple_target = 8160);',
}
