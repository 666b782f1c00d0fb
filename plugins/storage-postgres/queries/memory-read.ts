import type { ListMemoriesQuery, MemoryLink, MemoryRecord, MemoryRelation, Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { filterSql } from './filters.ts'
import {
	ACTIVE,
	MEMORIES_BY_ID_JSON,
	MEMORY_COLUMNS,
	type MemoryJsonRow,
	type MemoryRow,
	memoryScope,
	rowsFromJson,
	toMemory,
} from './memory-rows.ts'
import { Params } from './params.ts'
import { inIdOrder } from './rows.ts'

export async function getMemories(db: Db, scope: Scope, ids: string[]): Promise<MemoryRecord[]> {
	if (ids.length === 0) return []
	const [result] = await db.query<{ rows: MemoryJsonRow[] | null }>(MEMORIES_BY_ID_JSON, [scope.orgId, ids])
	return inIdOrder(ids, rowsFromJson(result?.rows).map(toMemory))
}

export async function findMemoryByContent(
	db: Db,
	scope: Scope,
	containerTag: string,
	content: string,
): Promise<MemoryRecord | null> {
	const [row] = await db.query<MemoryRow>(
		`SELECT ${MEMORY_COLUMNS} FROM memories m
		WHERE m.org_id = $1 AND m.container_tag = $2 AND md5(m.memory) = md5($3) AND m.memory = $3
		ORDER BY m.is_latest DESC, m.is_forgotten, m.updated_at DESC, m.updated_seq DESC LIMIT 1`,
		[scope.orgId, containerTag, content],
	)
	if (row) return toMemory(row)
	// The text as the client wrote it, when the memory was stored without its final full stop (or with one more).
	const bare = withoutTrailingPunctuation(content)
	if (bare === '') return null
	const [loose] = await db.query<MemoryRow>(
		`SELECT ${MEMORY_COLUMNS} FROM memories m
		WHERE m.org_id = $1 AND m.container_tag = $2 AND btrim(regexp_replace(m.memory, $4, '')) = $3
		ORDER BY m.is_latest DESC, m.is_forgotten, m.updated_at DESC, m.updated_seq DESC LIMIT 1`,
		[scope.orgId, containerTag, bare, TRAILING_PUNCTUATION_SQL],
	)
	return loose ? toMemory(loose) : null
}

/** Full stops, other sentence-ending marks and whitespace at the end of a text. */
const TRAILING_PUNCTUATION_SQL = '[[:space:].!?;:,…]+$'

function withoutTrailingPunctuation(text: string): string {
	return text.replace(/[\s.!?;:,…]+$/u, '').trim()
}

const SORT_COLUMNS = { createdAt: 'created', updatedAt: 'updated' } as const
const DIRECTIONS = { asc: 'ASC', desc: 'DESC' } as const

export async function listMemories(
	db: Db,
	scope: Scope,
	query: ListMemoriesQuery,
): Promise<{ memories: MemoryRecord[]; total: number }> {
	const params = new Params()
	const conditions = [...memoryScope(scope.orgId, query.containerTags, params), 'm.is_latest']
	if (query.filters) conditions.push(filterSql(query.filters, 'm.metadata', params))
	if (query.includeForgotten === false) conditions.push(ACTIVE)
	const where = conditions.join(' AND ')
	const countParams = [...params.values]
	const column = SORT_COLUMNS[query.sort]
	const direction = DIRECTIONS[query.order]
	const limit = params.add(query.limit)
	const offset = params.add((Math.max(1, query.page) - 1) * query.limit)
	const [rows, [count]] = await Promise.all([
		db.query<MemoryRow>(
			`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE ${where}
			ORDER BY m.${column}_at ${direction}, m.${column}_seq ${direction} LIMIT ${limit} OFFSET ${offset}`,
			params.values,
		),
		db.query<{ total: number }>(`SELECT count(*)::int AS total FROM memories m WHERE ${where}`, countParams),
	])
	return { memories: rows.map(toMemory), total: count?.total ?? 0 }
}

/** Every version of the chains of `ids`, and the relations touching any of those versions. */
export async function memoryGraph(
	db: Db,
	scope: Scope,
	ids: string[],
): Promise<{ memories: MemoryRecord[]; links: MemoryLink[] }> {
	if (ids.length === 0) return { memories: [], links: [] }
	const rows = await db.query<MemoryRow>(
		`SELECT ${MEMORY_COLUMNS} FROM memories m
		WHERE m.org_id = $1 AND m.root_id IN (SELECT root_id FROM memories WHERE org_id = $1 AND id = ANY($2::text[]))
		ORDER BY m.root_id, m.version`,
		[scope.orgId, ids],
	)
	const chainIds = rows.map((row) => row.id)
	const links = await db.query<{ from_id: string; to_id: string; relation: MemoryRelation }>(
		`SELECT r.from_id, r.to_id, r.relation FROM memory_relations r
		JOIN memories a ON a.id = r.from_id AND a.org_id = $1
		JOIN memories b ON b.id = r.to_id AND b.org_id = $1
		WHERE r.from_id = ANY($2::text[]) OR r.to_id = ANY($2::text[])
		ORDER BY r.created_at, r.from_id, r.to_id`,
		[scope.orgId, chainIds],
	)
	const linked = new Set(links.flatMap((link) => [link.from_id, link.to_id]))
	const missing = [...linked].filter((id) => !chainIds.includes(id))
	const neighbours = missing.length > 0 ? await getMemories(db, scope, missing) : []
	return {
		memories: [...rows.map(toMemory), ...neighbours],
		links: links.map((link) => ({ fromId: link.from_id, toId: link.to_id, relation: link.relation })),
	}
}

export async function memoriesOfDocument(db: Db, scope: Scope, documentId: string): Promise<MemoryRecord[]> {
	const rows = await db.query<MemoryRow>(
		`SELECT ${MEMORY_COLUMNS} FROM memories m JOIN memory_sources src ON src.memory_id = m.id
		WHERE m.org_id = $1 AND src.document_id = $2
		ORDER BY m.created_at, m.created_seq`,
		[scope.orgId, documentId],
	)
	return rows.map(toMemory)
}

export async function forgetMemories(
	db: Db,
	scope: Scope,
	containerTag: string,
	ids: string[],
	how: { reason: string | null; batchId: string | null },
): Promise<string[]> {
	if (ids.length === 0) return []
	const rows = await db.query<{ id: string }>(
		`UPDATE memories SET is_forgotten = true, forgotten_at = now(), forget_reason = coalesce($4, forget_reason),
			forget_batch_id = $5, updated_at = now(), updated_seq = nextval('memory_changes')
		WHERE org_id = $1 AND container_tag = $2 AND id = ANY($3::text[]) AND NOT is_forgotten
		RETURNING id`,
		[scope.orgId, containerTag, ids, how.reason, how.batchId],
	)
	return rows.map((row) => row.id)
}
