import type { Migration } from './schema.ts'

/** API keys that expire and keys restricted to some container tags. */
export const KEY_SCOPES_MIGRATION: Migration = {
	version: 8,
	name: 'api key expiry and container tag restriction',
	sql: () => `
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
ALTER TABLE api_keys ADD COLUMN container_tags text[];
`,
}
