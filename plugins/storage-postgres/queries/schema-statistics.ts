import type { Migration } from './schema.ts'

/**
 * ANALYZE skips the columns no query filters by value: the vectors (searched through their HNSW index or by
 * distance) and the texts (searched through their tsvectors; a memory's exact text through its md5 index). Sorting a
 * sample of each for its histogram was a large part of every ANALYZE of chunks and memories, which on the embedded
 * store runs on the event loop (docs/postgres-tuning.md).
 */
export const STATISTICS_COLUMNS_MIGRATION: Migration = {
	version: 32,
	name: 'no statistics of vectors and texts',
	sql: () => `
ALTER TABLE chunks ALTER COLUMN embedding SET STATISTICS 0, ALTER COLUMN content SET STATISTICS 0;
ALTER TABLE memories ALTER COLUMN embedding SET STATISTICS 0, ALTER COLUMN memory SET STATISTICS 0;
ALTER TABLE documents ALTER COLUMN content SET STATISTICS 0;
`,
}
