import type { Migration } from './schema.ts'

/**
 * Version 2: the memory graph. Memories (versioned facts with an embedding and a full-text vector), their sources
 * (documents, with chunk positions and conversation turns), and their relations. Documents gain what dreaming needs.
 *
 * Invariants kept by core and by `release_memories`: a version chain is linear; every member has `root_id` = its
 * first version (its own id for the first); `version` counts from 1 along `parent_memory_id`; only the newest
 * version is `is_latest`. Forgetting is a flag (`is_forgotten`, or `forget_after` passed), never a delete.
 *
 * When a memory loses its last source (its document was deleted, or re-extracted without it), a trigger deletes it
 * and repairs its chain: the survivors are renumbered, re-linked, and the newest survivor becomes latest again.
 * Being a trigger, this holds for every way a document or source can go (single and bulk deletes, container and
 * organization deletes), present and future.
 */
export const MEMORY_MIGRATION: Migration = {
	version: 2,
	name: 'memory graph and dreaming',
	sql: (space) => `
ALTER TABLE documents
	ADD COLUMN extracted_turns integer NOT NULL DEFAULT 0,
	ADD COLUMN turns_hash text,
	ADD COLUMN memories_hash text,
	ADD COLUMN memories_formed_at timestamptz;
CREATE INDEX documents_dreaming_idx ON documents (org_id, container_tag, created_at, created_seq)
	WHERE status = 'done' AND dreaming_status = 'dreaming';

-- As for documents: PGlite's clock ticks in milliseconds, the sequence keeps creation and update order exact.
CREATE SEQUENCE memory_changes;

CREATE TABLE memories (
	id text PRIMARY KEY,
	org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	container_tag text NOT NULL,
	memory text NOT NULL,
	content_key text NOT NULL,
	embedding vector(${space.dimensions}),
	tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', memory)) STORED,
	version integer NOT NULL DEFAULT 1,
	is_latest boolean NOT NULL DEFAULT true,
	parent_memory_id text,
	root_id text NOT NULL,
	is_static boolean NOT NULL DEFAULT false,
	is_forgotten boolean NOT NULL DEFAULT false,
	forgotten_at timestamptz,
	forget_after timestamptz,
	forget_reason text,
	forget_batch_id text,
	is_inference boolean NOT NULL DEFAULT false,
	subject text,
	attribute text,
	value text,
	metadata jsonb,
	event_dates text[] NOT NULL DEFAULT '{}',
	buckets text[] NOT NULL DEFAULT '{}',
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	created_seq bigint NOT NULL DEFAULT nextval('memory_changes'),
	updated_seq bigint NOT NULL DEFAULT nextval('memory_changes')
);
-- Memories are written about ten times as often as documents (several per document): a sparser graph (m 8,
-- ef_construction 32) makes each insert about three times cheaper; searches widen ef_search to keep recall.
CREATE INDEX memories_embedding_idx ON memories USING hnsw (embedding vector_cosine_ops) WITH (m = 8, ef_construction = 32);
CREATE INDEX memories_tsv_idx ON memories USING gin (tsv);
CREATE INDEX memories_created_idx ON memories (org_id, container_tag, created_at, created_seq) WHERE is_latest;
CREATE INDEX memories_updated_idx ON memories (org_id, container_tag, updated_at, updated_seq) WHERE is_latest;
CREATE INDEX memories_fact_idx ON memories (org_id, container_tag, subject, attribute) WHERE is_latest;
CREATE INDEX memories_content_key_idx ON memories (org_id, container_tag, content_key) WHERE is_latest;
-- Exact-text lookups (PATCH and DELETE by content): a hash keeps long texts out of the index.
CREATE INDEX memories_text_idx ON memories (org_id, container_tag, md5(memory));
CREATE INDEX memories_root_idx ON memories (root_id);
CREATE INDEX memories_batch_idx ON memories (org_id, forget_batch_id) WHERE forget_batch_id IS NOT NULL;

CREATE TABLE memory_sources (
	memory_id text NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
	document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
	chunk_positions integer[] NOT NULL DEFAULT '{}',
	turn_indexes integer[] NOT NULL DEFAULT '{}',
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (memory_id, document_id)
);
CREATE INDEX memory_sources_document_idx ON memory_sources (document_id);

CREATE TABLE memory_relations (
	from_id text NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
	to_id text NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
	relation text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (from_id, to_id, relation)
);
CREATE INDEX memory_relations_to_idx ON memory_relations (to_id);

-- Deletes the given memories that have no source left, and repairs the version chains they were part of.
CREATE FUNCTION release_memories(candidates text[]) RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
	orphans text[];
	chains text[];
	survivors text[];
BEGIN
	SELECT array_agg(m.id) INTO orphans FROM memories m
	WHERE m.id = ANY(candidates) AND NOT EXISTS (SELECT 1 FROM memory_sources s WHERE s.memory_id = m.id);
	IF orphans IS NULL THEN
		RETURN 0;
	END IF;
	SELECT array_agg(DISTINCT m.root_id) INTO chains FROM memories m WHERE m.id = ANY(orphans);
	DELETE FROM memories WHERE id = ANY(orphans);
	SELECT array_agg(m.id) INTO survivors FROM memories m WHERE m.root_id = ANY(chains);
	IF survivors IS NOT NULL THEN
		WITH renumbered AS (
			SELECT m.id,
				row_number() OVER chain AS version,
				lag(m.id) OVER chain AS parent,
				first_value(m.id) OVER chain AS root,
				count(*) OVER (PARTITION BY m.root_id) AS length
			FROM memories m WHERE m.id = ANY(survivors)
			WINDOW chain AS (PARTITION BY m.root_id ORDER BY m.version)
		)
		UPDATE memories m
		SET version = r.version, parent_memory_id = r.parent, root_id = r.root, is_latest = (r.version = r.length),
			updated_at = now(), updated_seq = nextval('memory_changes')
		FROM renumbered r
		WHERE m.id = r.id AND (m.version, m.parent_memory_id, m.root_id, m.is_latest)
			IS DISTINCT FROM (r.version::int, r.parent, r.root, r.version = r.length);
		INSERT INTO memory_relations (from_id, to_id, relation)
		SELECT m.id, m.parent_memory_id, 'updates' FROM memories m
		WHERE m.id = ANY(survivors) AND m.parent_memory_id IS NOT NULL
		ON CONFLICT DO NOTHING;
	END IF;
	RETURN cardinality(orphans);
END
$fn$;

CREATE FUNCTION memory_sources_released() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	PERFORM release_memories(ARRAY(SELECT DISTINCT memory_id FROM released));
	RETURN NULL;
END
$fn$;

CREATE TRIGGER memory_sources_release AFTER DELETE ON memory_sources
	REFERENCING OLD TABLE AS released FOR EACH STATEMENT EXECUTE FUNCTION memory_sources_released();
`,
}
