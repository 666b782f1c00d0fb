import type { Migration } from './schema.ts'

/**
 * Version 5: container-tag settings (display name, entity context, the tag's own profile buckets), merges of tags
 * and their outcome, and the indexes a profile reads through (static facts, bucket members).
 */
export const CONTAINERS_MIGRATION: Migration = {
	version: 5,
	name: 'container tags, merges and profile indexes',
	sql: () => `
CREATE TABLE container_tags (
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	tag text NOT NULL,
	name text,
	entity_context text,
	profile_buckets jsonb NOT NULL DEFAULT '[]',
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (org_id, tag)
);

CREATE TABLE container_merges (
	id text PRIMARY KEY,
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	target_tag text NOT NULL,
	source_tags text[] NOT NULL,
	status text NOT NULL DEFAULT 'queued',
	documents_moved integer NOT NULL DEFAULT 0,
	memories_moved integer NOT NULL DEFAULT 0,
	custom_id_conflicts integer NOT NULL DEFAULT 0,
	error text,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	finished_at timestamptz
);
CREATE INDEX container_merges_org_idx ON container_merges (org_id, created_at);

CREATE INDEX memories_static_idx ON memories (org_id, container_tag, updated_at, updated_seq)
	WHERE is_latest AND is_static AND NOT is_forgotten;
CREATE INDEX memories_buckets_idx ON memories USING gin (buckets) WHERE is_latest AND NOT is_forgotten;
`,
}
