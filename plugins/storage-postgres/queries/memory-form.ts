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
import { vectorParam } from './params.ts'
import { vectorScanSettings } from './search.ts'
import { setLocal } from './set-local.ts'

/**
 * How many latest memories a container may hold and still have its neighbours found exactly rather than through the
 * HNSW index: at least EXACT_NEIGHBOURS_AT_LEAST, more in a larger index. An exact probe grows with the container; an
 * index probe filtered to one container grows with the share of other containers' memories it walks past. The two
 * cost the same for a container of sqrt(EXACT_NEIGHBOURS_INDEX_FACTOR × memories in the index) (measurements:
 * docs/measurements.md).
 */
const EXACT_NEIGHBOURS_AT_LEAST = 1000
const EXACT_NEIGHBOURS_INDEX_FACTOR = 364

/**
 * Candidates of the index search per probe. A formation looks for near-duplicates and close paraphrases, which a
 * narrow search finds as well as a wide one; searches for a user's query look wider (MEMORY_EF_SEARCH).
 */
const FORMATION_EF_SEARCH = 40

/** The settings a formation's reads run under (the probes' candidates; iterative scans for a filtered index scan). */
export const FORMATION_SCAN = vectorScanSettings({ efSearch: FORMATION_EF_SEARCH })

/** How long a container seen above the exact bound is searched through the index without checking again. */
const LARGE_FOR_MS = 60_000

/**
 * Containers known to be too large for exact neighbours, so their formations skip the exact read (it would read
 * the bound's worth of embeddings to learn that again). Forgotten after LARGE_FOR_MS, so a container that shrank (or
 * an index that grew) is checked again; bounded, as every organization's containers pass through.
 */
export class LargeContainers {
	private readonly until = new Map<string, number>()

	has(scope: Scope, containerTag: string): boolean {
		const key = containerKey(scope, containerTag)
		const until = this.until.get(key) ?? 0
		if (until >= Date.now()) return true
		this.until.delete(key)
		return false
	}

	add(scope: Scope, containerTag: string): void {
		if (this.until.size >= 10_000) this.until.clear()
		this.until.set(containerKey(scope, containerTag), Date.now() + LARGE_FOR_MS)
	}
}

const containerKey = (scope: Scope, containerTag: string) => `${scope.orgId}\u0000${containerTag}`

/** For the read through the index only: no sorts, no sequential scans (see readContext); then the defaults again. */
export const INDEX_READ_PLANNER = { enable_sort: 'off', enable_seqscan: 'off' } as const
const PLANNER_DEFAULTS = { enable_sort: 'on', enable_seqscan: 'on' } as const

/** Latest, active memories of the formation's container ($1 org, $2 container), alias `m`. */
const LINKABLE = `m.org_id = $1 AND m.container_tag = $2 AND m.is_latest AND ${ACTIVE}`

type Nearest = { memoryId: string; similarity: number }[][]
type ContextRow = LinkableRow & { pool_size: number; pool_bound: number; near: [number, number][] | null }

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
	large: LargeContainers,
): Promise<FormationResult[] | null> {
	return db.transaction(async (tx) => {
		// The settings, the locks and the context read go out together (one round trip; the database runs them in
		// order, so the read waits for the lock): while a formation holds its container's lock, every round trip
		// waits on an event loop that is busy with other documents.
		// A document's memories can always be formed again: a crash may lose the last formations before their commit
		// reached the disk (the documents then show dreaming, and the start-up sweep forms them again), never part of
		// one. Writes without a guard (through the API) keep the server's durability.
		const [, admitted, context] = await Promise.all([
			setLocal(tx, { ...FORMATION_SCAN, ...(guards ? { synchronous_commit: 'off' } : {}) }),
			lock(tx, scope, containerTag, guards),
			readContext(tx, scope, containerTag, probe, large),
		])
		if (guards && admitted.size === 0) return null
		const plans = await decide(context, admitted)
		// The writes' plans do not depend on their parameters, so they may keep a generic plan instead of being planned
		// at every execution (the connection's default, for the searches); that includes the foreign-key checks they
		// fire, one per source row. The setting goes out first, in the same round trip as the writes.
		const [, results] = await Promise.all([
			setLocal(tx, { plan_cache_mode: 'auto' }),
			applyPlans(tx, scope, containerTag, plans),
		])
		return results
	})
}

/**
 * Locks the documents while they still hold the content and turn count the formation started from, then takes the
 * container's formation lock (formations of one container run one at a time). Returns the documents whose guard held.
 * Both statements are sent before either answers.
 */
async function lock(tx: Db, scope: Scope, containerTag: string, guards: FormationGuard[] | null): Promise<Set<string>> {
	const containerLock = () =>
		tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
			`memory-formation:${scope.orgId}:${containerTag}`,
		])
	if (!guards) {
		await containerLock()
		return new Set()
	}
	const guarded = tx.query<{ id: string }>(
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
	const [rows] = await Promise.all([guarded, containerLock()])
	return new Set(rows.map((row) => row.id))
}

/**
 * The memories a formation may link to: nearest neighbours of each probe vector, same texts, same facts and the
 * asked ids, in one statement. A container of usual size is searched exactly (an approximate index scan over a large
 * table could miss a small container's neighbours); a very large one goes through the HNSW index.
 */
async function readContext(
	tx: Db,
	scope: Scope,
	containerTag: string,
	probe: FormationProbe,
	large: LargeContainers,
): Promise<FormationContext> {
	const params = contextParams(scope, containerTag, probe)
	const read = async (near: 'exact' | 'index') => {
		if (near === 'exact') return tx.query<ContextRow>(contextStatement(near), params)
		// Sorts and sequential scans are ruled out for this read, so the neighbours come from the HNSW index: the
		// statistics of a container that grows fast lag behind, and with a small estimate the planner read the whole
		// container and sorted it, once per probe (90-150 ms per formation at 5,000 memories, against 20-60 through
		// the index). The settings go out with the read: no round trip of their own.
		const [, rows] = await Promise.all([
			setLocal(tx, INDEX_READ_PLANNER),
			tx.query<ContextRow>(contextStatement(near), params),
			setLocal(tx, PLANNER_DEFAULTS),
		])
		return rows
	}
	if (seeksNeighbours(probe) && large.has(scope, containerTag)) return contextOf(await read('index'), probe)
	const rows = await read('exact')
	// Every row carries the pool's size. No row at all means either an empty container or a large one (its exact
	// neighbours are skipped) with no same text, fact or id: only the index read can tell, and it probes nothing in
	// an empty container (its statement checks first).
	if (seeksNeighbours(probe) && (rows.length === 0 || rows[0]!.pool_size > rows[0]!.pool_bound)) {
		const indexed = await read('index')
		// Neighbours the exact read did not find: the container is large.
		if (indexed.length > 0) large.add(scope, containerTag)
		return contextOf(indexed, probe)
	}
	return contextOf(rows, probe)
}

/** The probe asks for nearest neighbours and has vectors to find them for. */
const seeksNeighbours = (probe: FormationProbe) => probe.neighbours > 0 && probe.vectors.length > 0

/** The context read's parameters, $1 to $8. */
export function contextParams(scope: Scope, containerTag: string, probe: FormationProbe): unknown[] {
	return [
		scope.orgId,
		containerTag,
		seeksNeighbours(probe) ? probe.vectors.map(vectorParam) : [],
		probe.neighbours,
		probe.ids ?? [],
		probe.contentKeys,
		probe.facts.map((fact) => fact.subject),
		probe.facts.map((fact) => fact.attribute),
	]
}

/** Nearest neighbours of each probe vector ($3, $4 per probe), exactly over the pool or through the HNSW index. */
const NEAR = {
	exact: `bound AS MATERIALIZED (
			SELECT greatest(${EXACT_NEIGHBOURS_AT_LEAST}, sqrt(${EXACT_NEIGHBOURS_INDEX_FACTOR} * greatest(c.reltuples, 0)))::int AS n
			FROM pg_class c WHERE c.oid = 'memories'::regclass
		),
		pool AS MATERIALIZED (
			SELECT m.id, m.embedding FROM memories m WHERE ${LINKABLE} AND m.embedding IS NOT NULL
			LIMIT (SELECT n + 1 FROM bound)
		),
		near AS (
			SELECT probe.i::int AS i, hit.id, hit.similarity
			FROM unnest($3::text[]::vector[]) WITH ORDINALITY AS probe(vector, i)
			CROSS JOIN LATERAL (
				SELECT pool.id, 1 - (pool.embedding <=> probe.vector) AS similarity FROM pool
				ORDER BY pool.embedding <=> probe.vector LIMIT $4
			) AS hit
			WHERE (SELECT count(*) FROM pool) <= (SELECT n FROM bound)
		)`,
	// Only when the container holds a memory at all: an index scan filtered to an empty container walks the whole
	// organization's graph (~90 ms per probe with 12,000 memories elsewhere) to find nothing.
	index: `near AS (
			SELECT probe.i::int AS i, hit.id, hit.similarity
			FROM unnest($3::text[]::vector[]) WITH ORDINALITY AS probe(vector, i)
			CROSS JOIN LATERAL (
				SELECT m.id, 1 - (m.embedding <=> probe.vector) AS similarity FROM memories m
				WHERE ${LINKABLE} AND m.embedding IS NOT NULL ORDER BY m.embedding <=> probe.vector LIMIT $4
			) AS hit
			WHERE EXISTS (SELECT FROM memories m WHERE ${LINKABLE} AND m.embedding IS NOT NULL)
		)`,
}

export function contextStatement(near: keyof typeof NEAR): string {
	// Shaped so that no plan depends on how many memories the planner thinks the container holds: the statistics of a
	// container that grows fast lag behind, and with an estimate of one row the planner joined the probes' keys
	// against a scan of the whole container and read every wanted row by scanning it again. Now the keys are looked up
	// in one index scan, given ids one by one through the primary key alone (the LIMIT keeps the container's condition
	// out of that lookup), and the wanted rows are read through the primary key alone (every id in `wanted` is already
	// of this container); each row's neighbour hits are grouped once, not searched for per row.
	return `WITH ${NEAR[near]},
		hits AS (SELECT id, json_agg(json_build_array(i, similarity)) AS near FROM near GROUP BY id),
		wanted AS (
			SELECT id FROM hits
			UNION SELECT hit.id FROM unnest($5::text[]) AS given(id) CROSS JOIN LATERAL (
				SELECT m.id, m.org_id, m.container_tag FROM memories m WHERE m.id = given.id LIMIT 1
			) AS hit WHERE hit.org_id = $1 AND hit.container_tag = $2
			UNION SELECT m.id FROM memories m WHERE ${LINKABLE} AND m.content_key = ANY($6::text[])
			UNION SELECT hit.id FROM unnest($7::text[], $8::text[]) AS fact(subject, attribute) CROSS JOIN LATERAL (
				SELECT m.id FROM memories m WHERE ${LINKABLE} AND m.subject = fact.subject AND m.attribute = fact.attribute
			) AS hit
		)
		SELECT ${LINKABLE_COLUMNS}, ${near === 'exact' ? '(SELECT count(*) FROM pool)::int AS pool_size, (SELECT n FROM bound) AS pool_bound' : '-1 AS pool_size, -1 AS pool_bound'},
			hits.near
		FROM memories m LEFT JOIN hits ON hits.id = m.id
		WHERE m.id = ANY(ARRAY(SELECT id FROM wanted))`
}

function contextOf(rows: ContextRow[], probe: FormationProbe): FormationContext {
	const nearest: Nearest = probe.vectors.map(() => [])
	for (const row of rows) {
		for (const [i, similarity] of row.near ?? []) nearest[i - 1]?.push({ memoryId: row.id, similarity })
	}
	for (const hits of nearest) hits.sort((a, b) => b.similarity - a.similarity)
	return { memories: rows.map(toLinkable), nearest }
}
