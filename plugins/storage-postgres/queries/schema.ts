import type { VectorSpace } from '../../../core/index.ts'
import { CHUNK_GENERATIONS_MIGRATION } from './schema-chunk-generations.ts'
import { CHUNK_ROWS_INLINE_MIGRATION } from './schema-chunk-rows.ts'
import { CONNECTION_FAILURES_MIGRATION } from './schema-connection-failures.ts'
import { CONNECTIONS_MIGRATION } from './schema-connections.ts'
import { CONTAINERS_MIGRATION } from './schema-containers.ts'
import { DOCUMENT_LINES_MIGRATION } from './schema-document-lines.ts'
import { DOCUMENT_TEXTS_MIGRATION } from './schema-document-texts.ts'
import { DOCUMENT_TWINS_MIGRATION } from './schema-document-twins.ts'
import { FEEDBACK_MIGRATION } from './schema-feedback.ts'
import { DOCUMENT_FILES_MIGRATION } from './schema-files.ts'
import { FORMATION_SCOPE_MIGRATION } from './schema-formation-scope.ts'
import { KEY_SCOPES_MIGRATION } from './schema-key-scopes.ts'
import { MEMORY_MIGRATION } from './schema-memories.ts'
import { ORGANIZATION_MIGRATION } from './schema-organization.ts'
import { SHARED_TURNS_MIGRATION } from './schema-shared-turns.ts'
import { STATISTICS_COLUMNS_MIGRATION } from './schema-statistics.ts'

export interface Migration {
	version: number
	name: string
	/** The statements; a function of the vector space so the embedding column is `vector(D)`. */
	sql(space: VectorSpace): string
}

/** Append only: a released migration is never edited, a change is a new version. Applied in version order. */
export const MIGRATIONS: Migration[] = inVersionOrder([
	{
		version: 1,
		name: 'initial schema',
		sql: (space) => `
CREATE TABLE meta (
	key text PRIMARY KEY,
	value jsonb NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE orgs (
	id text PRIMARY KEY,
	name text NOT NULL UNIQUE,
	created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
	id text PRIMARY KEY,
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	name text NOT NULL,
	prefix text NOT NULL,
	hash text NOT NULL UNIQUE,
	created_at timestamptz NOT NULL DEFAULT now(),
	last_used_at timestamptz,
	revoked_at timestamptz
);
CREATE INDEX api_keys_org_idx ON api_keys (org_id);

-- PGlite's clock ticks in milliseconds: timestamps tie, so this sequence keeps creation and update order exact.
CREATE SEQUENCE document_changes;

CREATE TABLE documents (
	id text PRIMARY KEY,
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	container_tag text NOT NULL,
	custom_id text,
	connection_id text,
	content text NOT NULL,
	text text,
	content_hash text NOT NULL,
	title text,
	summary text,
	source text,
	url text,
	type text NOT NULL,
	task_type text NOT NULL,
	status text NOT NULL,
	dreaming text NOT NULL,
	dreaming_status text NOT NULL,
	metadata jsonb,
	filepath text,
	entity_context text,
	error text,
	stages jsonb NOT NULL DEFAULT '[]',
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	created_seq bigint NOT NULL DEFAULT nextval('document_changes'),
	updated_seq bigint NOT NULL DEFAULT nextval('document_changes')
);
CREATE UNIQUE INDEX documents_custom_id_key ON documents (org_id, container_tag, custom_id) WHERE custom_id IS NOT NULL;
CREATE INDEX documents_by_custom_id_idx ON documents (org_id, custom_id) WHERE custom_id IS NOT NULL;
CREATE INDEX documents_container_created_idx ON documents (org_id, container_tag, created_at, created_seq);
CREATE INDEX documents_org_created_idx ON documents (org_id, created_at, created_seq);
CREATE INDEX documents_org_updated_idx ON documents (org_id, updated_at, updated_seq);
CREATE INDEX documents_filepath_idx ON documents (org_id, filepath text_pattern_ops) WHERE filepath IS NOT NULL;
CREATE INDEX documents_unfinished_idx ON documents (updated_at) WHERE status NOT IN ('done', 'failed');

CREATE TABLE chunks (
	id text PRIMARY KEY,
	document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
	org_id text NOT NULL,
	container_tag text NOT NULL,
	position integer NOT NULL,
	content text NOT NULL,
	type text NOT NULL,
	metadata jsonb,
	embedding vector(${space.dimensions}),
	ready boolean NOT NULL DEFAULT false,
	tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chunks_embedding_idx ON chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX chunks_container_idx ON chunks (org_id, container_tag);
CREATE INDEX chunks_document_idx ON chunks (document_id, position);
`,
	},
	MEMORY_MIGRATION,
	DOCUMENT_FILES_MIGRATION,
	ORGANIZATION_MIGRATION,
	CONTAINERS_MIGRATION,
	CONNECTIONS_MIGRATION,
	KEY_SCOPES_MIGRATION,
	CHUNK_GENERATIONS_MIGRATION,
	DOCUMENT_LINES_MIGRATION,
	DOCUMENT_TEXTS_MIGRATION,
	CONNECTION_FAILURES_MIGRATION,
	SHARED_TURNS_MIGRATION,
	FEEDBACK_MIGRATION,
	FORMATION_SCOPE_MIGRATION,
	CHUNK_ROWS_INLINE_MIGRATION,
	DOCUMENT_TWINS_MIGRATION,
	STATISTICS_COLUMNS_MIGRATION,
])

/** Sorted by version; two migrations claiming one version stop the start (the second would never be applied). */
export function inVersionOrder(migrations: Migration[]): Migration[] {
	const sorted = [...migrations].sort((a, b) => a.version - b.version)
	for (let i = 1; i < sorted.length; i++) {
		if (sorted[i]!.version === sorted[i - 1]!.version) {
			throw new Error(
				`migrations ${sorted[i - 1]!.name} and ${sorted[i]!.name} both claim version ${sorted[i]!.version}`,
			)
		}
	}
	return sorted
}
