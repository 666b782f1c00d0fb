import type { Migration } from './schema.ts'

/**
 * A v5 add without an id looks for the same add made in the last ten minutes (an SDK retry). By container and
 * creation time alone that read every document the container took in those minutes: up to 60,000 at 100 a second.
 */
export const DOCUMENT_TWINS_MIGRATION: Migration = {
	version: 31,
	name: 'document twins index',
	sql: () => `
CREATE INDEX documents_twin_idx ON documents (org_id, container_tag, content_hash, created_at) WHERE custom_id IS NULL;
`,
}
