import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { MIGRATIONS } from '../plugins/storage-postgres/queries/schema.ts'
import { TEST_VECTOR_SPACE } from './contract/storage.contract.ts'

/**
 * An embedded store as a release before migration `version` left it (every earlier migration applied), with `rows`
 * (SQL) written into it; closed, for the storage plugin to open and migrate.
 */
export async function storeBeforeMigration(dataDir: string, version: number, rows: string): Promise<void> {
	const old = await openPglite(dataDir)
	await old.db.exec(`CREATE EXTENSION IF NOT EXISTS vector;
		CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
	for (const migration of MIGRATIONS.filter((m) => m.version < version)) {
		await old.db.exec(migration.sql(TEST_VECTOR_SPACE))
		await old.db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
			migration.version,
			migration.name,
		])
	}
	await old.db.exec(rows)
	await old.close()
}
