import { type Logger, StartupError, type VectorSpace } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { MIGRATIONS } from './schema.ts'
import { assertIndexable, claimVectorSpace } from './vector-space.ts'

/**
 * Brings the schema up to date in one transaction. The advisory lock makes processes that start together (an API
 * process and a worker) wait for each other instead of racing on the same DDL.
 */
export async function migrate(db: Db, space: VectorSpace, logger?: Logger): Promise<void> {
	assertIndexable(space)
	await db.transaction(async (tx) => {
		await tx.query("SELECT pg_advisory_xact_lock(hashtext('memory-service:schema'))")
		await createVectorExtension(tx)
		await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY,
			name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`)
		const applied = await appliedVersions(tx)
		const existingStore = applied.size > 0
		// An existing store is checked before it is migrated, so a store of another vector space is never altered.
		if (existingStore) await claimVectorSpace(tx, space)
		for (const migration of MIGRATIONS) {
			if (applied.has(migration.version)) continue
			await tx.exec(migration.sql(space))
			await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
				migration.version,
				migration.name,
			])
			logger?.info('storage migration applied', { version: migration.version, name: migration.name })
		}
		if (!existingStore) await claimVectorSpace(tx, space)
	})
}

/** SQLSTATEs of a missing extension (feature_not_supported, or undefined_file on older servers) or missing rights. */
const EXTENSION_UNAVAILABLE = new Set(['0A000', '58P01', '42501'])

async function createVectorExtension(tx: Db): Promise<void> {
	try {
		await tx.exec('CREATE EXTENSION IF NOT EXISTS vector')
	} catch (error) {
		if (!EXTENSION_UNAVAILABLE.has((error as { code?: string }).code ?? '')) throw error
		throw new StartupError(
			`The database has no pgvector extension, or this user may not create it (${(error as Error).message}). Install pgvector 0.8 or later and run CREATE EXTENSION vector as a superuser.`,
		)
	}
	// Filtered vector searches rely on iterative index scans, new in pgvector 0.8.
	const [row] = await tx.query<{ version: string }>(
		"SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'",
	)
	const [major = 0, minor = 0] = (row?.version ?? '0').split('.').map(Number)
	if (major === 0 && minor < 8) {
		throw new StartupError(
			`pgvector ${row?.version} is installed; storage-postgres needs 0.8 or later (upgrade it, then ALTER EXTENSION vector UPDATE).`,
		)
	}
}

async function appliedVersions(tx: Db): Promise<Set<number>> {
	const rows = await tx.query<{ version: number }>('SELECT version FROM schema_migrations')
	return new Set(rows.map((row) => row.version))
}
