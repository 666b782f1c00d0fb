import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { storagePostgres } from '../plugins/storage-postgres/index.ts'
import { MIGRATIONS } from '../plugins/storage-postgres/queries/schema.ts'
import { context, TEST_VECTOR_SPACE } from './contract/storage.contract.ts'

describe('document text parts migration (embedded)', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'storage-texts-'))
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

	it('moves the text a store kept in its document rows into parts, and reads it as before', async () => {
		// A store as the release before text parts left it: the extracted text is a column of the document row.
		const old = await openPglite(dataDir)
		await old.db.exec(`CREATE EXTENSION IF NOT EXISTS vector;
			CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
		for (const migration of MIGRATIONS.filter((m) => m.version < 25)) {
			await old.db.exec(migration.sql(TEST_VECTOR_SPACE))
			await old.db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
				migration.version,
				migration.name,
			])
		}
		await old.db.exec(`INSERT INTO orgs (id, name) VALUES ('org1', 'one');
			INSERT INTO documents (id, org_id, container_tag, content, text, content_hash, type, task_type, status, dreaming, dreaming_status) VALUES
				('extracted', 'org1', 'tag', 'https://example.test/a', 'The page text.', 'h1', 'webpage', 'memory', 'done', 'instant', 'done'),
				('queued', 'org1', 'tag', 'not yet', NULL, 'h2', 'text', 'memory', 'queued', 'instant', 'dreaming')`)
		await old.close()

		const storage = storagePostgres({ dataDir })
		await storage.init?.(context())
		try {
			expect(await storage.documents.text('extracted')).toBe('The page text.')
			expect(await storage.documents.text('queued')).toBeNull()
			expect(await storage.documents.get({ orgId: 'org1' }, 'extracted')).toMatchObject({
				content: 'https://example.test/a',
			})
			expect(await storage.documents.delete({ orgId: 'org1' }, 'extracted')).toBe(true)
			expect(await storage.documents.text('extracted')).toBeNull()
		} finally {
			await storage.close?.()
		}
	}, 120_000)
})
