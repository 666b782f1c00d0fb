import type { Migration } from './schema.ts'

/** Organization settings, usage counters and quotas. */
export const ORGANIZATION_MIGRATION: Migration = {
	version: 4,
	name: 'organization settings, usage and quotas',
	sql: () => `
CREATE TABLE org_settings (
	org_id text PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
	settings jsonb NOT NULL DEFAULT '{}',
	updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE usage_counters (
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	metric text NOT NULL,
	day date NOT NULL,
	amount bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (org_id, metric, day)
);

CREATE TABLE org_quotas (
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	metric text NOT NULL,
	period text NOT NULL,
	max_amount bigint NOT NULL,
	PRIMARY KEY (org_id, metric)
);
`,
}
