import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { context } from '../../testkit/contract/storage.contract.ts'
import { storeBeforeMigration } from '../../testkit/old-store.ts'

describe('document text parts migration (embedded)', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'storage-texts-'))
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

	it('moves the text a store kept in its document rows into parts, and reads it as before', async () => {
		// A store as the release before text parts left it: the extracted text is a column of the document row.
		await storeBeforeMigration(
			dataDir,
			25,
			`INSERT INTO orgs (id, name) VALUES ('org1', 'one');
			INSERT INTO documents (id, org_id, container_tag, content, text, content_hash, type, task_type, status, dreaming, dreaming_status) VALUES
				('extracted', 'org1', 'tag', 'https://example.test/a', 'The page text.', 'h1', 'webpage', 'memory', 'done', 'instant', 'done'),
				('queued', 'org1', 'tag', 'not yet', NULL, 'h2', 'text', 'memory', 'queued', 'instant', 'dreaming')`,
		)

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
