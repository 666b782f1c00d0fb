import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { context } from '../../testkit/contract/storage.contract.ts'
import { storeBeforeMigration } from '../../testkit/old-store.ts'

describe('chunk generations migration (embedded)', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'storage-generations-'))
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

	it('keeps a store’s published chunks searchable and its staged ones staged', async () => {
		// A store as the release before chunk generations left it: published chunks are `ready`, staged ones are not.
		await storeBeforeMigration(
			dataDir,
			23,
			`INSERT INTO orgs (id, name) VALUES ('org1', 'one');
			INSERT INTO documents (id, org_id, container_tag, content, content_hash, type, task_type, status, dreaming, dreaming_status)
			VALUES ('doc1', 'org1', 'tag', 'x', 'h', 'text', 'memory', 'embedding', 'instant', 'done');
			INSERT INTO chunks (id, document_id, org_id, container_tag, position, content, type, ready) VALUES
				('c1', 'doc1', 'org1', 'tag', 0, 'published words', 'text', true),
				('c2', 'doc1', 'org1', 'tag', 0, 'staged words', 'text', false)`,
		)

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
