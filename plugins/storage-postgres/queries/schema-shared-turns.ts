import type { Migration } from './schema.ts'

/**
 * Turns shared by every process on the store: a web crawler's pacing per host, so two workers crawling one site
 * take turns and keep its Crawl-delay between them. Keyed by host, not by organization: the load is the site's.
 */
export const SHARED_TURNS_MIGRATION: Migration = {
	version: 27,
	name: 'shared turns',
	sql: () => `
CREATE TABLE shared_turns (
	key text PRIMARY KEY,
	owner text NOT NULL,
	next_at timestamptz NOT NULL,
	ended_at timestamptz NOT NULL DEFAULT '-infinity'
);
`,
}
