import { type ChunkStore, newId } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { jsonParam, textParam, vectorParam } from './params.ts'
import { CHUNK_COLUMNS, type ChunkRow, toChunk } from './rows.ts'

export interface ChunkHooks {
	/** Called with the number of chunks a publish made searchable. */
	published?(count: number): Promise<void>
}

/**
 * Chunks are staged (not searchable), embedded, then published. Writes go in batches (one statement per call): with
 * an HNSW index, row-at-a-time inserts are slow.
 */
export function chunkStore(db: () => Db, hooks: ChunkHooks = {}): ChunkStore {
	return {
		async list(scope, documentId) {
			const rows = await db().query<ChunkRow>(
				`SELECT ${CHUNK_COLUMNS} FROM chunks c WHERE c.org_id = $1 AND c.document_id = $2 AND c.ready ORDER BY c.position`,
				[scope.orgId, documentId],
			)
			return rows.map(toChunk)
		},

		async byIds(scope, ids) {
			if (ids.length === 0) return []
			const rows = await db().query<ChunkRow>(
				`SELECT ${CHUNK_COLUMNS} FROM chunks c WHERE c.org_id = $1 AND c.id = ANY($2::text[]) AND c.ready`,
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
				WHERE c.org_id = $1 AND c.ready
				ORDER BY c.document_id, c.position`,
				[scope.orgId, pairs.map(([documentId]) => documentId), pairs.map(([, position]) => position)],
			)
			return rows.map(toChunk)
		},

		async clearStaged(documentId) {
			await db().query('DELETE FROM chunks WHERE document_id = $1 AND NOT ready', [documentId])
		},

		async stage(documentId, chunks) {
			if (chunks.length === 0) return
			// One statement, each row written once with its embedding: what was staged at these positions goes.
			await db().query(
				`WITH replaced AS (DELETE FROM chunks WHERE document_id = $1 AND NOT ready AND position = ANY($3::int[]))
				INSERT INTO chunks (id, document_id, org_id, container_tag, position, content, type, metadata, embedding)
				SELECT staged.id, d.id, d.org_id, d.container_tag, staged.position, staged.content, staged.type,
					staged.metadata::jsonb, staged.embedding::vector
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
				FROM chunks c WHERE c.document_id = $1 AND NOT c.ready ORDER BY c.position`,
				[documentId],
			)
			return rows.map((row) => ({ ...toChunk(row), embedded: row.embedded }))
		},

		async publish(documentId) {
			// One statement, so searches see either the old chunks or the new ones, never both or neither. Without staged
			// chunks it changes nothing: a run that resumes after a publish whose stage record a crash lost publishes
			// again, and must not take the published chunks away.
			const rows = await db().query(
				`WITH replaced AS (
					DELETE FROM chunks WHERE document_id = $1 AND ready
						AND EXISTS (SELECT FROM chunks staged WHERE staged.document_id = $1 AND NOT staged.ready)
				)
				UPDATE chunks SET ready = true WHERE document_id = $1 AND NOT ready RETURNING id`,
				[documentId],
			)
			await hooks.published?.(rows.length)
			return rows.length
		},
	}
}
