import { StartupError, type VectorSpace } from '../../../core/index.ts'
import type { Db } from '../db.ts'

const VECTOR_SPACE_KEY = 'vector_space'
/** pgvector's HNSW index accepts `vector` columns up to this many dimensions. */
export const MAX_INDEXED_DIMENSIONS = 2000

export function assertIndexable(space: VectorSpace): void {
	if (!Number.isInteger(space.dimensions) || space.dimensions < 1 || space.dimensions > MAX_INDEXED_DIMENSIONS) {
		throw new StartupError(
			`The embedder ${space.id} produces ${space.dimensions}-dimensional vectors; storage-postgres indexes 1 to ${MAX_INDEXED_DIMENSIONS} dimensions. Configure the embedder for fewer dimensions.`,
		)
	}
}

/** Refuses a store whose vectors come from another embedder; records the space on first start. */
export async function claimVectorSpace(tx: Db, space: VectorSpace): Promise<void> {
	const stored = await storedVectorSpace(tx)
	if (!stored) {
		await tx.query('INSERT INTO meta (key, value) VALUES ($1, $2::jsonb)', [
			VECTOR_SPACE_KEY,
			JSON.stringify({ id: space.id, dimensions: space.dimensions }),
		])
		return
	}
	if (stored.id !== space.id || stored.dimensions !== space.dimensions) {
		throw new StartupError(
			`This store holds vectors from embedder ${stored.id} (${stored.dimensions} dimensions) but the configured embedder is ${space.id} (${space.dimensions} dimensions). Use the original embedder, or point MEMORY_DATA_DIR / DATABASE_URL at a new store.`,
		)
	}
}

async function storedVectorSpace(tx: Db): Promise<VectorSpace | null> {
	const [row] = await tx.query<{ value: VectorSpace }>('SELECT value FROM meta WHERE key = $1', [VECTOR_SPACE_KEY])
	return row?.value ?? null
}
