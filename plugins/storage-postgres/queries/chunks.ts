import { type ChunkStore, newId, yieldToEventLoop } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { filterSql } from './filters.ts'
import { jsonParam, Params, textParam, vectorParam } from './params.ts'
import { CHUNK_COLUMNS, type ChunkRow, toChunk } from './rows.ts'

export interface ChunkHooks {
	/** Called with the number of chunks a publish made searchable. */
	published?(count: number): Promise<void>
}

/** The document's published generation of chunks (see schema-chunk-generations.ts). */
const PUBLISHED_GENERATION = '(SELECT owner.chunk_generation FROM documents owner WHERE owner.id = c.document_id)'

/** Condition on a chunk `c`: it is of its document's published generation, so reads and searches may see it. */
export const PUBLISHED = `c.generation = ${PUBLISHED_GENERATION}`

/**
 * The same as a join, for reads of known chunks: the planner looks each document up once (PUBLISHED as a condition
 * looks it up again for every chunk, a scan of the documents table per row in a small embedded store).
 */
const PUBLISHED_OWNER = 'JOIN documents owner ON owner.id = c.document_id AND owner.chunk_generation = c.generation'

/** Replaced chunks are deleted this many at a time after a publish, so no statement runs long. */
const DELETE_BATCH = 500

/**
 * Chunks are staged (written under the document's next generation, not searchable), embedded, then published by
 * moving the document to that generation. Writes go in batches (one statement per call): with an HNSW index,
 * row-at-a-time inserts are slow.
 */
export function chunkStore(db: () => Db, hooks: ChunkHooks = {}): ChunkStore {
	return {
		async list(scope, documentId) {
			const rows = await db().query<ChunkRow>(
				`SELECT ${CHUNK_COLUMNS} FROM chunks c ${PUBLISHED_OWNER}
				WHERE c.org_id = $1 AND c.document_id = $2 ORDER BY c.position`,
				[scope.orgId, documentId],
			)
			return rows.map(toChunk)
		},

		async listInContainer(scope, containerTag, query) {
			const params = new Params()
			const conditions = [
				`c.org_id = ${params.add(scope.orgId)}`,
				`c.container_tag = ${params.add(containerTag)}`,
				PUBLISHED,
			]
			// Chunks carry their document's metadata: the filter reads the document's.
			if (query.filters) conditions.push(filterSql(query.filters, 'd.metadata', params))
			const where = conditions.join(' AND ')
			const countValues = [...params.values]
			const direction = query.order === 'asc' ? 'ASC' : 'DESC'
			const order =
				query.sort === 'position'
					? `c.document_id ${direction}, c.position ${direction}`
					: query.sort === 'updatedAt'
						? `d.updated_at ${direction}, c.position ${direction}`
						: `c.created_at ${direction}, c.id ${direction}`
			const limit = params.add(query.limit)
			const offset = params.add((Math.max(1, query.page) - 1) * query.limit)
			const from = 'FROM chunks c JOIN documents d ON d.id = c.document_id'
			const [rows, [count]] = await Promise.all([
				db().query<ChunkRow>(
					`SELECT ${CHUNK_COLUMNS} ${from} WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
					params.values,
				),
				db().query<{ total: number }>(`SELECT count(*)::int AS total ${from} WHERE ${where}`, countValues),
			])
			return { chunks: rows.map(toChunk), total: count?.total ?? 0 }
		},

		async byIds(scope, ids) {
			if (ids.length === 0) return []
			const rows = await db().query<ChunkRow>(
				`SELECT ${CHUNK_COLUMNS} FROM chunks c ${PUBLISHED_OWNER} WHERE c.org_id = $1 AND c.id = ANY($2::text[])`,
				[scope.orgId, ids],
			)
			return rows.map(toChunk)
		},

		async atPositions(scope, wanted) {
			const pairs = wanted.flatMap(({ documentId, positions }) =>
				positions.map((position) => [documentId, position] as const),
			)
			if (pairs.length === 0) return []
			const rows = await db().query<ChunkRow>(
				`SELECT ${CHUNK_COLUMNS} FROM chunks c
				JOIN (SELECT DISTINCT * FROM unnest($2::text[], $3::int[]) AS pair(document_id, position)) AS wanted
					ON wanted.document_id = c.document_id AND wanted.position = c.position
				${PUBLISHED_OWNER}
				WHERE c.org_id = $1
				ORDER BY c.document_id, c.position`,
				[scope.orgId, pairs.map(([documentId]) => documentId), pairs.map(([, position]) => position)],
			)
			return rows.map(toChunk)
		},

		async clearStaged(documentId) {
			await db().query(`DELETE FROM chunks c WHERE c.document_id = $1 AND c.generation <> ${PUBLISHED_GENERATION}`, [
				documentId,
			])
		},

		async stage(documentId, chunks) {
			if (chunks.length === 0) return
			// One statement, each row written once with its embedding, under the generation after the published one:
			// what was staged at these positions goes.
			await db().query(
				`WITH replaced AS (
					DELETE FROM chunks c WHERE c.document_id = $1 AND c.position = ANY($3::int[])
						AND c.generation <> ${PUBLISHED_GENERATION}
				)
				INSERT INTO chunks (id, document_id, org_id, container_tag, position, content, type, metadata, embedding,
					generation)
				SELECT staged.id, d.id, d.org_id, d.container_tag, staged.position, staged.content, staged.type,
					staged.metadata::jsonb, staged.embedding::vector, d.chunk_generation + 1
				FROM documents d, unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[])
					AS staged(id, position, content, type, metadata, embedding)
				WHERE d.id = $1`,
				[
					documentId,
					chunks.map(() => newId()),
					chunks.map((chunk) => chunk.position),
					chunks.map((chunk) => textParam(chunk.content)),
					chunks.map((chunk) => chunk.type),
					chunks.map((chunk) => jsonParam(chunk.metadata)),
					chunks.map((chunk) => (chunk.embedding ? vectorParam(chunk.embedding) : null)),
				],
			)
		},

		async staged(documentId) {
			const rows = await db().query<ChunkRow & { embedded: boolean }>(
				`SELECT ${CHUNK_COLUMNS}, c.embedding IS NOT NULL AS embedded
				FROM chunks c WHERE c.document_id = $1 AND c.generation > ${PUBLISHED_GENERATION} ORDER BY c.position`,
				[documentId],
			)
			return rows.map((row) => ({ ...toChunk(row), embedded: row.embedded }))
		},

		async publish(documentId) {
			// One row changes, so searches see either the old chunks or the new ones, never both or neither. Without
			// staged chunks it changes nothing: a run that resumes after a publish whose stage record a crash lost
			// publishes again, and must not take the published chunks away.
			const [flipped] = await db().query<{ published: number }>(
				`WITH flipped AS (
					UPDATE documents d SET chunk_generation = d.chunk_generation + 1
					WHERE d.id = $1 AND EXISTS (SELECT FROM chunks c WHERE c.document_id = $1 AND c.generation > d.chunk_generation)
					RETURNING d.chunk_generation
				)
				SELECT (SELECT count(*) FROM chunks c WHERE c.document_id = $1 AND c.generation = f.chunk_generation)::int
					AS published
				FROM flipped f`,
				[documentId],
			)
			// The replaced generation is out of sight now; it goes a batch at a time (also what a crash left of it).
			for (;;) {
				const deleted = await db().query(
					`DELETE FROM chunks WHERE id IN (
						SELECT c.id FROM chunks c WHERE c.document_id = $1 AND c.generation < ${PUBLISHED_GENERATION} LIMIT $2
					) RETURNING id`,
					[documentId, DELETE_BATCH],
				)
				if (deleted.length < DELETE_BATCH) break
				await yieldToEventLoop()
			}
			const published = flipped?.published ?? 0
			await hooks.published?.(published)
			return published
		},
	}
}
