import type { Migration } from './schema.ts'

/** Feedback reports sent through the v5 API, per organization. */
export const FEEDBACK_MIGRATION: Migration = {
	version: 28,
	name: 'feedback reports',
	sql: () => `
CREATE TABLE feedback (
	id text PRIMARY KEY,
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	key_id text,
	type text NOT NULL,
	title text NOT NULL,
	description text NOT NULL,
	endpoint text,
	request_id text,
	expected text,
	actual text,
	client text,
	contact_email text,
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feedback_org_created_idx ON feedback (org_id, created_at DESC, id);
`,
}
