import type {
	FormationContext,
	FormationGuard,
	FormationPlan,
	FormationProbe,
	FormationResult,
	Scope,
} from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { applyPlans } from './memory-apply.ts'
import { ACTIVE, LINKABLE_COLUMNS, type LinkableRow, toLinkable } from './memory-rows.ts'
import { MEMORY_EF_SEARCH } from './memory-search.ts'
import { vectorParam } from './params.ts'
import { ITERATIVE_INDEX_SCAN } from './search.ts'

/**
 * Up to this many latest memories, a container's neighbours are found exactly; above it, through the HNSW index. An
 * exact probe costs about 0.2 ms per 1,000 memories on PostgreSQL, an index probe about 0.15 ms at any size.
 */
const EXACT_NEIGHBOURS_UP_TO = 1000

/** Latest, active memories of the formation's container ($1 org, $2 container), alias `m`. */
const LINKABLE = `m.org_id = $1 AND m.container_tag = $2 AND m.is_latest AND ${ACTIVE}`

type Nearest = { memoryId: string; similarity: number }[][]
type ContextRow = LinkableRow & { pool_size: number; near: [number, number][] | null }

/**
 * One formation, in one transaction: the guards and the container's formation lock, the reads the probe asks for
 * (one statement for a container of usual size), the caller's decision for the documents whose guard held, and its
 * plans applied. Without guards the decision is always made (memories written through the API).
 */
export async function formMemories(
	db: Db,
	scope: Scope,
	containerTag: string,
	guards: FormationGuard[] | null,
	probe: FormationProbe,
	decide: (context: FormationContext, admitted: Set<string>) => FormationPlan[] | Promise<FormationPlan[]>,
): Promise<FormationResult[] | null> {
	return db.transaction(async (tx) => {
		// A document's memories can always be formed again: a crash may lose the last formations before their commit
		// reached the disk (the documents then show dreaming, and the start-up sweep forms them again), never part of
		// one. Writes without a guard (through the API) keep the server's durability.
		if (guards) await tx.query('SET LOCAL synchronous_commit = off')
		const admitted = await lock(tx, scope, containerTag, guards)
		if (guards && admitted.size === 0) return null
		const context = await readContext(tx, scope, containerTag, probe)
		const plans = await decide(context, admitted)
		return applyPlans(tx, scope, containerTag, plans)
	})
}

/**
 * Locks the documents while they still hold the content and turn count the formation started from, then takes the
 * container's formation lock (formations of one container run one at a time). Returns the documents whose guard held.
 */
async function lock(tx: Db, scope: Scope, containerTag: string, guards: FormationGuard[] | null): Promise<Set<string>> {
	const key = `memory-formation:${scope.orgId}:${containerTag}`
	if (!guards) {
		await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key])
		return new Set()
	}
	const rows = await tx.query<{ id: string }>(
		`SELECT d.id FROM documents d
		JOIN unnest($3::text[], $4::text[], $5::int[]) AS g(id, content_hash, turns)
			ON d.id = g.id AND d.content_hash = g.content_hash AND d.extracted_turns = g.turns
		WHERE d.org_id = $1 AND d.container_tag = $2
		ORDER BY d.id
		FOR UPDATE OF d`,
		[
			scope.orgId,
			containerTag,
			guards.map((guard) => guard.documentId),
			guards.map((guard) => guard.contentHash),
			guards.map((guard) => guard.extractedTurns),
		],
	)
	if (rows.length > 0) await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key])
	return new Set(rows.map((row) => row.id))
}

/**
 * The memories a formation may link to: nearest neighbours of each probe vector, same texts, same facts and the
 * asked ids. A container of usual size is searched exactly, in the same statement (an approximate index scan over
 * a large table could miss a small container's neighbours); a very large one goes through the HNSW index.
 */
async function readContext(
	tx: Db,
	scope: Scope,
	containerTag: string,
	probe: FormationProbe,
): Promise<FormationContext> {
	const vectors = probe.neighbours > 0 ? probe.vectors.map(vectorParam) : []
	const facts = probe.facts
	const rows = await tx.query<ContextRow>(
		`WITH pool AS MATERIALIZED (
			SELECT m.id, m.embedding FROM memories m WHERE ${LINKABLE} AND m.embedding IS NOT NULL
			LIMIT ${EXACT_NEIGHBOURS_UP_TO + 1}
		),
		near AS (
			SELECT probe.i::int AS i, hit.id, hit.similarity
			FROM unnest($3::text[]::vector[]) WITH ORDINALITY AS probe(vector, i)
			CROSS JOIN LATERAL (
				SELECT pool.id, 1 - (pool.embedding <=> probe.vector) AS similarity FROM pool
				ORDER BY pool.embedding <=> probe.vector LIMIT $4
			) AS hit
			WHERE (SELECT count(*) FROM pool) <= ${EXACT_NEIGHBOURS_UP_TO}
		),
		wanted AS (
			SELECT id FROM near
			UNION SELECT unnest($5::text[])
			UNION SELECT hit.id FROM unnest($6::text[]) AS given(key) CROSS JOIN LATERAL (
				SELECT m.id FROM memories m WHERE ${LINKABLE} AND m.content_key = given.key
			) AS hit
			UNION SELECT hit.id FROM unnest($7::text[], $8::text[]) AS fact(subject, attribute) CROSS JOIN LATERAL (
				SELECT m.id FROM memories m WHERE ${LINKABLE} AND m.subject = fact.subject AND m.attribute = fact.attribute
			) AS hit
		)
		SELECT ${LINKABLE_COLUMNS}, (SELECT count(*) FROM pool)::int AS pool_size,
			(SELECT json_agg(json_build_array(near.i, near.similarity)) FROM near WHERE near.id = m.id) AS near
		FROM wanted CROSS JOIN LATERAL (
			SELECT * FROM memories m WHERE m.id = wanted.id AND m.org_id = $1 AND m.container_tag = $2
		) AS m`,
		[
			scope.orgId,
			containerTag,
			vectors,
			probe.neighbours,
			probe.ids ?? [],
			probe.contentKeys,
			facts.map((fact) => fact.subject),
			facts.map((fact) => fact.attribute),
		],
	)
	// Every row carries the pool's size. No row at all means either an empty container or a large one (its exact
	// neighbours are skipped) with no same text, fact or id: only the index can tell, and for an empty container it
	// answers nothing at once.
	const large = rows.length === 0 || rows[0]!.pool_size > EXACT_NEIGHBOURS_UP_TO
	if (vectors.length > 0 && large) {
		return largeContainerContext(tx, scope, containerTag, { vectors, neighbours: probe.neighbours }, rows)
	}
	const nearest: Nearest = probe.vectors.map(() => [])
	for (const row of rows) {
		for (const [i, similarity] of row.near ?? []) nearest[i - 1]?.push({ memoryId: row.id, similarity })
	}
	for (const hits of nearest) hits.sort((a, b) => b.similarity - a.similarity)
	return { memories: rows.map(toLinkable), nearest }
}

/** Neighbours through the HNSW index, for a container too large to search exactly. */
async function largeContainerContext(
	tx: Db,
	scope: Scope,
	containerTag: string,
	probe: { vectors: string[]; neighbours: number },
	known: LinkableRow[],
): Promise<FormationContext> {
	await tx.query(ITERATIVE_INDEX_SCAN)
	await tx.query(MEMORY_EF_SEARCH)
	const hits = await tx.query<{ i: number; id: string; similarity: number }>(
		`SELECT probe.i::int AS i, hit.id, hit.similarity
		FROM unnest($3::text[]::vector[]) WITH ORDINALITY AS probe(vector, i)
		CROSS JOIN LATERAL (
			SELECT m.id, 1 - (m.embedding <=> probe.vector) AS similarity FROM memories m
			WHERE ${LINKABLE} AND m.embedding IS NOT NULL ORDER BY m.embedding <=> probe.vector LIMIT $4
		) AS hit`,
		[scope.orgId, containerTag, probe.vectors, probe.neighbours],
	)
	const nearest: Nearest = probe.vectors.map(() => [])
	for (const hit of hits) nearest[hit.i - 1]?.push({ memoryId: hit.id, similarity: hit.similarity })
	for (const list of nearest) list.sort((a, b) => b.similarity - a.similarity)
	const have = new Set(known.map((row) => row.id))
	const missing = [...new Set(hits.map((hit) => hit.id))].filter((id) => !have.has(id))
	const extra =
		missing.length === 0
			? []
			: await tx.query<LinkableRow>(
					`SELECT ${LINKABLE_COLUMNS} FROM memories m WHERE m.org_id = $1 AND m.container_tag = $2 AND m.id = ANY($3::text[])`,
					[scope.orgId, containerTag, missing],
				)
	return { memories: [...known, ...extra].map(toLinkable), nearest }
}
