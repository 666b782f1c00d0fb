import type { Migration } from './schema.ts'

/** Connections to providers, what they imported, their sync runs and webhook subscriptions. */
export const CONNECTIONS_MIGRATION: Migration = {
	version: 16,
	name: 'connections',
	sql: () => `
CREATE TABLE connections (
	id text PRIMARY KEY,
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	provider text NOT NULL,
	container_tags text[] NOT NULL,
	document_limit integer,
	metadata jsonb,
	redirect_url text,
	status text NOT NULL,
	error text,
	email text,
	secrets text,
	app text,
	settings jsonb NOT NULL DEFAULT '{}',
	cursor jsonb,
	auth_nonce text,
	auth_verifier text,
	auth_expires_at timestamptz,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX connections_org_idx ON connections (org_id, provider, created_at);

CREATE TABLE connection_items (
	connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
	external_id text NOT NULL,
	document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
	version text,
	PRIMARY KEY (connection_id, external_id)
);
CREATE INDEX connection_items_document_idx ON connection_items (document_id);

CREATE TABLE sync_runs (
	id text PRIMARY KEY,
	connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
	trigger text NOT NULL,
	status text NOT NULL,
	added integer NOT NULL DEFAULT 0,
	updated integer NOT NULL DEFAULT 0,
	deleted integer NOT NULL DEFAULT 0,
	skipped integer NOT NULL DEFAULT 0,
	failed integer NOT NULL DEFAULT 0,
	error text,
	error_code text,
	started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
	completed_at timestamptz
);
CREATE INDEX sync_runs_connection_idx ON sync_runs (connection_id, started_at DESC);

CREATE TABLE sync_failures (
	id text PRIMARY KEY,
	run_id text NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
	external_id text,
	error text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX sync_failures_run_idx ON sync_failures (run_id, created_at);

CREATE TABLE webhook_subscriptions (
	id text PRIMARY KEY,
	connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
	org_id text NOT NULL,
	provider text NOT NULL,
	external_id text NOT NULL,
	route_key text NOT NULL,
	secret text NOT NULL,
	expires_at timestamptz,
	data jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX webhook_subscriptions_route_idx ON webhook_subscriptions (provider, route_key);
CREATE INDEX webhook_subscriptions_expiry_idx ON webhook_subscriptions (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE webhook_deliveries (
	provider text NOT NULL,
	delivery_id text NOT NULL,
	received_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (provider, delivery_id)
);
`,
}
