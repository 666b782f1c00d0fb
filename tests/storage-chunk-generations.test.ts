import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { storagePostgres } from '../plugins/storage-postgres/index.ts'
import { MIGRATIONS } from '../plugins/storage-postgres/queries/schema.ts'
import { context, TEST_VECTOR_SPACE } from './contract/storage.contract.ts'

describe('chunk generations migration (embedded)', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'storage-generations-'))
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

	it('keeps a store’s published chunks searchable and its staged ones staged', async () => {
		// A store as the release before chunk generations left it: published chunks are `ready`, staged ones are not.
		const old = await openPglite(dataDir)
		await old.db.exec(`CREATE EXTENSION IF NOT EXISTS vector;
			CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
		for (const migration of MIGRATIONS.filter((m) => m.version < 23)) {
			await old.db.exec(migration.sql(TEST_VECTOR_SPACE))
			await old.db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
				migration.version,
				migration.name,
			])
		}
		await old.db.exec(`INSERT INTO orgs (id, name) VALUES ('org1', 'one');
			INSERT INTO documents (id, org_id, container_tag, content, content_hash, type, task_type, status, dreaming, dreaming_status)
			VALUES ('doc1', 'org1', 'tag', 'x', 'h', 'text', 'memory', 'embedding', 'instant', 'done');
			INSERT INTO chunks (id, document_id, org_id, container_tag, position, content, type, ready) VALUES
				('c1', 'doc1', 'org1', 'tag', 0, 'published words', 'text', true),
				('c2', 'doc1', 'org1', 'tag', 0, 'staged words', 'text', false)`)
		await old.close()

		const storage = storagePostgres({ dataDir })
		await storage.init?.(context())
		try {
			const scope = { orgId: 'org1' }
			expect((await storage.chunks.list(scope, 'doc1')).map((chunk) => chunk.content)).toEqual(['published words'])
			expect((await storage.chunks.staged('doc1')).map((chunk) => chunk.content)).toEqual(['staged words'])
			expect(await storage.chunks.publish('doc1')).toBe(1)
			expect((await storage.chunks.list(scope, 'doc1')).map((chunk) => chunk.content)).toEqual(['staged words'])
			expect(await storage.chunks.staged('doc1')).toEqual([])
		} finally {
			await storage.close?.()
		}
	}, 120_000)
})
