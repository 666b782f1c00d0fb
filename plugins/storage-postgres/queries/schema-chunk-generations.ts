import type { Migration } from './schema.ts'

/**
 * Chunks belong to a generation of their document; only the document's current generation is searchable. Publishing
 * a document's new chunks moves its generation on (one row), instead of rewriting every chunk row, which re-indexed
 * each of them (HNSW, full text) in one long statement. Staged chunks are those of a later generation.
 */
export const CHUNK_GENERATIONS_MIGRATION: Migration = {
	version: 23,
	name: 'chunk generations',
	sql: () => `
ALTER TABLE documents ADD COLUMN chunk_generation integer NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN generation integer NOT NULL DEFAULT 0;
UPDATE chunks SET generation = 1 WHERE NOT ready;
ALTER TABLE chunks DROP COLUMN ready;
`,
}
