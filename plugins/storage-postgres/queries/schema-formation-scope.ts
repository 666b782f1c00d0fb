import type { Migration } from './schema.ts'

/** A document's formation scope: the metadata its memories' formation context is limited to (null: the container). */
export const FORMATION_SCOPE_MIGRATION: Migration = {
	version: 29,
	name: 'document formation scope',
	sql: () => `
ALTER TABLE documents ADD COLUMN formation_scope jsonb;
`,
}
