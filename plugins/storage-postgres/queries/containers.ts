import type {
	BucketDefinition,
	ContainerStore,
	ContainerTagSettings,
	MergeRecord,
	MergeStatus,
	ProfileFact,
} from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { filterSql } from './filters.ts'
import { ACTIVE } from './memory-rows.ts'
import { Params, textParam, vectorParam } from './params.ts'

type Stamp = Date | string
const iso = (value: Stamp) => new Date(value).toISOString()
const isoOrNull = (value: Stamp | null) => (value === null ? null : iso(value))

interface SettingsRow {
	tag: string
	name: string | null
	entity_context: string | null
	profile_buckets: BucketDefinition[] | string
	created_at: Stamp
	updated_at: Stamp
}

function toSettings(row: SettingsRow): ContainerTagSettings {
	const buckets = typeof row.profile_buckets === 'string' ? JSON.parse(row.profile_buckets) : row.profile_buckets
	return {
		containerTag: row.tag,
		name: row.name,
		entityContext: row.entity_context,
		profileBuckets: (buckets as BucketDefinition[]).map((b) => ({ key: b.key, description: b.description ?? '' })),
		createdAt: iso(row.created_at),
		updatedAt: iso(row.updated_at),
	}
}

interface MergeRow {
	id: string
	status: MergeStatus
	target_tag: string
	source_tags: string[]
	documents_moved: number
	memories_moved: number
	custom_id_conflicts: number
	error: string | null
	created_at: Stamp
	updated_at: Stamp
	finished_at: Stamp | null
}

function toMerge(row: MergeRow): MergeRecord {
	return {
		id: row.id,
		status: row.status,
		targetTag: row.target_tag,
		sourceTags: row.source_tags,
		documentsMoved: row.documents_moved,
		memoriesMoved: row.memories_moved,
		customIdConflicts: row.custom_id_conflicts,
		error: row.error,
		createdAt: iso(row.created_at),
		updatedAt: iso(row.updated_at),
		finishedAt: isoOrNull(row.finished_at),
	}
}

const SETTINGS_COLUMNS = 'tag, name, entity_context, profile_buckets, created_at, updated_at'
const MERGE_COLUMNS = `id, status, target_tag, source_tags, documents_moved, memories_moved, custom_id_conflicts, error,
	created_at, updated_at, finished_at`
/** Latest memories of one container that are neither forgotten nor expired ($1 org, $2 tag). */
const PROFILE_POOL = `m.org_id = $1 AND m.container_tag = $2 AND m.is_latest AND ${ACTIVE}`

export function containerStore(db: () => Db): ContainerStore {
	return {
		async list(scope) {
			// Counts come from indexed GROUP BYs over the organization's rows, one pass each.
			const rows = await db().query<{
				tag: string
				name: string | null
				settings_created: Stamp | null
				settings_updated: Stamp | null
				documents: number | null
				doc_first: Stamp | null
				doc_last: Stamp | null
				memories: number | null
				mem_last: Stamp | null
			}>(
				`WITH docs AS (
					SELECT container_tag AS tag, count(*)::int AS n, min(created_at) AS first, max(updated_at) AS last
					FROM documents WHERE org_id = $1 GROUP BY container_tag
				),
				mems AS (
					SELECT container_tag AS tag, count(*) FILTER (WHERE NOT is_forgotten)::int AS n, max(updated_at) AS last
					FROM memories WHERE org_id = $1 AND is_latest GROUP BY container_tag
				),
				tags AS (
					SELECT tag FROM docs UNION SELECT tag FROM mems UNION SELECT tag FROM container_tags WHERE org_id = $1
				)
				SELECT t.tag, c.name, c.created_at AS settings_created, c.updated_at AS settings_updated,
					d.n AS documents, d.first AS doc_first, d.last AS doc_last, mm.n AS memories, mm.last AS mem_last
				FROM tags t
				LEFT JOIN container_tags c ON c.org_id = $1 AND c.tag = t.tag
				LEFT JOIN docs d ON d.tag = t.tag
				LEFT JOIN mems mm ON mm.tag = t.tag
				ORDER BY t.tag`,
				[scope.orgId],
			)
			return rows.map((row) => {
				const activity = [row.doc_last, row.mem_last].flatMap((v) => (v === null ? [] : [iso(v)])).sort()
				const created = [row.settings_created, row.doc_first].flatMap((v) => (v === null ? [] : [iso(v)])).sort()
				const updated = [row.settings_updated, row.doc_last, row.mem_last]
					.flatMap((v) => (v === null ? [] : [iso(v)]))
					.sort()
				return {
					containerTag: row.tag,
					name: row.name,
					createdAt: created[0] ?? new Date().toISOString(),
					updatedAt: updated.at(-1) ?? new Date().toISOString(),
					documentCount: row.documents ?? 0,
					memoryCount: row.memories ?? 0,
					lastActivityAt: activity.at(-1) ?? null,
				}
			})
		},

		async get(scope, tag) {
			const [row] = await db().query<SettingsRow>(
				`SELECT ${SETTINGS_COLUMNS} FROM container_tags WHERE org_id = $1 AND tag = $2`,
				[scope.orgId, tag],
			)
			return row ? toSettings(row) : null
		},

		async existing(scope, tags) {
			if (tags.length === 0) return []
			const rows = await db().query<{ tag: string }>(
				`SELECT wanted.tag FROM unnest($2::text[]) AS wanted(tag)
				WHERE EXISTS (SELECT 1 FROM documents d WHERE d.org_id = $1 AND d.container_tag = wanted.tag)
					OR EXISTS (SELECT 1 FROM memories m WHERE m.org_id = $1 AND m.container_tag = wanted.tag AND m.is_latest)
					OR EXISTS (SELECT 1 FROM container_tags c WHERE c.org_id = $1 AND c.tag = wanted.tag)`,
				[scope.orgId, tags],
			)
			return rows.map((row) => row.tag)
		},

		async put(scope, tag, patch) {
			const [row] = await db().query<SettingsRow>(
				`INSERT INTO container_tags (org_id, tag, name, entity_context, profile_buckets)
				VALUES ($1, $2, $4, $6, coalesce($8::jsonb, '[]'))
				ON CONFLICT (org_id, tag) DO UPDATE SET
					name = CASE WHEN $3 THEN EXCLUDED.name ELSE container_tags.name END,
					entity_context = CASE WHEN $5 THEN EXCLUDED.entity_context ELSE container_tags.entity_context END,
					profile_buckets = CASE WHEN $7 THEN EXCLUDED.profile_buckets ELSE container_tags.profile_buckets END,
					updated_at = now()
				RETURNING ${SETTINGS_COLUMNS}`,
				[
					scope.orgId,
					tag,
					'name' in patch,
					patch.name === undefined ? null : textParam(patch.name),
					'entityContext' in patch,
					patch.entityContext === undefined ? null : textParam(patch.entityContext),
					'profileBuckets' in patch,
					patch.profileBuckets === undefined ? null : JSON.stringify(patch.profileBuckets),
				],
			)
			return toSettings(row!)
		},

		async countMemories(scope, tag) {
			const [row] = await db().query<{ n: number }>(
				`SELECT count(*)::int AS n FROM memories m
				WHERE m.org_id = $1 AND m.container_tag = $2 AND m.is_latest AND NOT m.is_forgotten`,
				[scope.orgId, tag],
			)
			return row?.n ?? 0
		},

		async deleteRest(scope, tag) {
			return db().transaction(async (tx) => {
				const removed = await tx.query<{ id: string; counted: boolean }>(
					`DELETE FROM memories m WHERE m.org_id = $1 AND m.container_tag = $2
					RETURNING m.id, (m.is_latest AND NOT m.is_forgotten) AS counted`,
					[scope.orgId, tag],
				)
				const settings = await tx.query('DELETE FROM container_tags WHERE org_id = $1 AND tag = $2 RETURNING tag', [
					scope.orgId,
					tag,
				])
				return { settingsRemoved: settings.length > 0, memoriesRemoved: removed.filter((r) => r.counted).length }
			})
		},

		async clearOrg(orgId) {
			return db().transaction(async (tx) => {
				const [memories] = await tx.query<{ n: number }>(
					'WITH gone AS (DELETE FROM memories WHERE org_id = $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
					[orgId],
				)
				const [tags] = await tx.query<{ n: number }>(
					'WITH gone AS (DELETE FROM container_tags WHERE org_id = $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
					[orgId],
				)
				return { memoryRows: memories?.n ?? 0, tags: tags?.n ?? 0 }
			})
		},

		async profile(scope, tag, query) {
			const params = new Params()
			params.add(scope.orgId)
			params.add(tag)
			const filter = query.filters ? ` AND ${filterSql(query.filters, 'm.metadata', params)}` : ''
			const pool = `${PROFILE_POOL}${filter}`
			const staticLimit = params.add(query.staticLimit)
			const dynamicLimit = params.add(query.dynamicLimit)
			const days = params.add(query.dynamicDays)
			const keys = params.add(query.buckets)
			const bucketLimit = params.add(query.bucketLimit)
			const [row] = await db().query<{
				static: ProfileFact[] | string | null
				dynamic: ProfileFact[] | string | null
				buckets: Record<string, ProfileFact[]> | string | null
			}>(
				`SELECT
					(SELECT coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'memory', f.memory) ORDER BY f.n), '[]'::jsonb)
						FROM (SELECT m.id, m.memory, row_number() OVER (ORDER BY m.updated_at DESC, m.updated_seq DESC) AS n
							FROM memories m WHERE ${pool} AND m.is_static
							ORDER BY m.updated_at DESC, m.updated_seq DESC LIMIT ${staticLimit}) f) AS static,
					(SELECT coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'memory', f.memory) ORDER BY f.n), '[]'::jsonb)
						FROM (SELECT m.id, m.memory, row_number() OVER (ORDER BY m.created_at DESC, m.created_seq DESC) AS n
							FROM memories m WHERE ${pool} AND NOT m.is_static
							AND m.created_at > now() - make_interval(days => ${days}::int)
							ORDER BY m.created_at DESC, m.created_seq DESC LIMIT ${dynamicLimit}) f) AS dynamic,
					(SELECT jsonb_object_agg(k.key, (
						SELECT coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'memory', f.memory) ORDER BY f.n), '[]'::jsonb)
						FROM (SELECT m.id, m.memory, row_number() OVER (ORDER BY m.updated_at DESC, m.updated_seq DESC) AS n
							FROM memories m WHERE ${pool} AND m.buckets @> ARRAY[k.key]
							ORDER BY m.updated_at DESC, m.updated_seq DESC LIMIT ${bucketLimit}) f))
					FROM unnest(${keys}::text[]) AS k(key)) AS buckets`,
				params.values,
			)
			const parsed = <T>(value: T | string | null | undefined, empty: T): T =>
				typeof value === 'string' ? (JSON.parse(value) as T) : (value ?? empty)
			const buckets = parsed(row?.buckets, {})
			return { static: parsed(row?.static, []), dynamic: parsed(row?.dynamic, []), buckets }
		},

		async tagsWithMemories(scope) {
			const rows = await db().query<{ tag: string }>(
				'SELECT DISTINCT container_tag AS tag FROM memories WHERE org_id = $1 AND is_latest ORDER BY 1',
				[scope.orgId],
			)
			return rows.map((row) => row.tag)
		},

		async bucketProbe(scope, tag, vectors, afterId, limit) {
			const rows = await db().query<{ id: string; memory: string; similarities: (number | null)[] | null }>(
				`SELECT m.id, m.memory, ARRAY(
					SELECT 1 - (m.embedding <=> b.v) FROM unnest($3::text[]::vector[]) WITH ORDINALITY AS b(v, i) ORDER BY b.i
				)::float8[] AS similarities
				FROM memories m
				WHERE m.org_id = $1 AND m.container_tag = $2 AND m.is_latest AND ($4::text IS NULL OR m.id > $4)
				ORDER BY m.id LIMIT $5`,
				[scope.orgId, tag, vectors.map(vectorParam), afterId, limit],
			)
			return rows.map((row) => ({
				id: row.id,
				memory: row.memory,
				similarities: vectors.map((_, i) => Number(row.similarities?.[i] ?? 0)),
			}))
		},

		async setBuckets(scope, assignments) {
			if (assignments.length === 0) return
			// Sorting is not an edit: updated_at stays, so recency ordering is unaffected.
			await db().query(
				`UPDATE memories m SET buckets = ARRAY(SELECT jsonb_array_elements_text(a.buckets::jsonb))
				FROM unnest($2::text[], $3::text[]) AS a(id, buckets)
				WHERE m.org_id = $1 AND m.id = a.id
					AND m.buckets IS DISTINCT FROM ARRAY(SELECT jsonb_array_elements_text(a.buckets::jsonb))`,
				[scope.orgId, assignments.map((a) => a.id), assignments.map((a) => JSON.stringify(a.buckets))],
			)
		},

		async createMerge(scope, merge) {
			const [row] = await db().query<MergeRow>(
				`INSERT INTO container_merges (id, org_id, target_tag, source_tags) VALUES ($1, $2, $3, $4::text[])
				RETURNING ${MERGE_COLUMNS}`,
				[merge.id, scope.orgId, merge.targetTag, merge.sourceTags],
			)
			return toMerge(row!)
		},

		async getMerge(scope, id) {
			const [row] = await db().query<MergeRow>(
				`SELECT ${MERGE_COLUMNS} FROM container_merges WHERE org_id = $1 AND id = $2`,
				[scope.orgId, id],
			)
			return row ? toMerge(row) : null
		},

		async runMerge(orgId, id) {
			try {
				return await db().transaction((tx) => applyMerge(tx, orgId, id))
			} catch (error) {
				const [row] = await db().query<MergeRow>(
					`UPDATE container_merges SET status = 'failed', error = $3, updated_at = now(), finished_at = now()
					WHERE org_id = $1 AND id = $2 RETURNING ${MERGE_COLUMNS}`,
					[orgId, id, String(error)],
				)
				return row ? toMerge(row) : null
			}
		},
	}
}

/**
 * Re-points the sources' documents, chunks and memories to the target and drops the sources' settings, under the
 * formation locks of every tag involved (no formation of these pools runs meanwhile). A source document whose
 * customId the target (or an earlier source) already uses keeps its content but loses its customId: a conflict.
 */
async function applyMerge(tx: Db, orgId: string, id: string): Promise<MergeRecord | null> {
	const [merge] = await tx.query<MergeRow>(
		`SELECT ${MERGE_COLUMNS} FROM container_merges WHERE org_id = $1 AND id = $2 FOR UPDATE`,
		[orgId, id],
	)
	if (!merge || merge.status === 'done' || merge.status === 'failed') return merge ? toMerge(merge) : null
	const sources = merge.source_tags
	const target = merge.target_tag
	for (const tag of [...new Set([target, ...sources])].sort()) {
		await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`memory-formation:${orgId}:${tag}`])
	}
	const conflicts = await tx.query(
		`WITH ranked AS (
			SELECT id, row_number() OVER (
				PARTITION BY custom_id
				ORDER BY (container_tag = $2) DESC, array_position($3::text[], container_tag), created_at, id
			) AS rank
			FROM documents WHERE org_id = $1 AND custom_id IS NOT NULL AND container_tag = ANY($4::text[])
		)
		UPDATE documents d SET custom_id = NULL FROM ranked r WHERE d.id = r.id AND r.rank > 1 RETURNING d.id`,
		[orgId, target, sources, [target, ...sources]],
	)
	const documents = await tx.query(
		'UPDATE documents SET container_tag = $2 WHERE org_id = $1 AND container_tag = ANY($3::text[]) RETURNING id',
		[orgId, target, sources],
	)
	await tx.query('UPDATE chunks SET container_tag = $2 WHERE org_id = $1 AND container_tag = ANY($3::text[])', [
		orgId,
		target,
		sources,
	])
	const memories = await tx.query(
		'UPDATE memories SET container_tag = $2 WHERE org_id = $1 AND container_tag = ANY($3::text[]) RETURNING id',
		[orgId, target, sources],
	)
	await tx.query('DELETE FROM container_tags WHERE org_id = $1 AND tag = ANY($2::text[])', [orgId, sources])
	const [row] = await tx.query<MergeRow>(
		`UPDATE container_merges SET status = 'done', documents_moved = $3, memories_moved = $4,
			custom_id_conflicts = $5, updated_at = now(), finished_at = now()
		WHERE org_id = $1 AND id = $2 RETURNING ${MERGE_COLUMNS}`,
		[orgId, id, documents.length, memories.length, conflicts.length],
	)
	return row ? toMerge(row) : null
}
