import type { Migration } from './schema.ts'

/**
 * Connector failure semantics: items that failed to import, kept per connection and read again with backoff until
 * they succeed or are given up; notes and a retry time on sync runs; the provider account a connection's grant
 * belongs to (revocation respects grants shared with other connections); one sync run per connection at a time
 * (a lease that a dead process's run gives up when it lapses).
 */
export const CONNECTION_FAILURES_MIGRATION: Migration = {
	version: 26,
	name: 'connector failure semantics',
	sql: () => `
CREATE TABLE connection_failed_items (
	connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
	external_id text NOT NULL,
	attempts integer NOT NULL,
	permanent boolean NOT NULL DEFAULT false,
	next_attempt_at timestamptz,
	error text NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (connection_id, external_id)
);
ALTER TABLE sync_runs ADD COLUMN notes jsonb NOT NULL DEFAULT '[]', ADD COLUMN retry_at timestamptz;
ALTER TABLE sync_failures ADD COLUMN permanent boolean NOT NULL DEFAULT false;
ALTER TABLE connections ADD COLUMN account_id text, ADD COLUMN sync_lease_owner text,
	ADD COLUMN sync_lease_until timestamptz;
CREATE INDEX connections_account_idx ON connections (account_id) WHERE account_id IS NOT NULL;
`,
}
