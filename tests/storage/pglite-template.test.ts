import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from '../../core/index.ts'
import { openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import {
	installedVersions,
	isNewStore,
	PGLITE_TEMPLATE_DIR,
	TEMPLATE_DATA_FILE,
	TEMPLATE_MANIFEST_FILE,
} from '../../plugins/storage-postgres/drivers/pglite-template.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { migrate } from '../../plugins/storage-postgres/queries/migrations.ts'
import { context, newDocument, TEST_VECTOR_SPACE, textChunk, vec } from '../../testkit/contract/storage.contract.ts'

// initdb in WebAssembly takes several seconds on a busy machine (a single file runs with bun's 5 s default).
const SLOW = 60_000

/** A logger that keeps its warnings, so a test can tell whether the template was refused. */
function recordingLogger(): Logger & { warnings: string[] } {
	const warnings: string[] = []
	return { warnings, debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) }
}

// Every database created from the template shares the template's system identifier; initdb draws a new one.
async function systemIdentifier(driver: Awaited<ReturnType<typeof openPglite>>): Promise<string> {
	const [row] = await driver.db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')
	return row!.id
}

describe('PGlite template', () => {
	const root = mkdtempSync(join(tmpdir(), 'pglite-template-'))
	let templateId: string
	// A copy of the template whose manifest names another PGlite.
	const staleTemplate = join(root, 'stale-template')

	beforeAll(async () => {
		const fromTemplate = await openPglite('memory://')
		templateId = await systemIdentifier(fromTemplate)
		await fromTemplate.close()
		mkdirSync(staleTemplate)
		copyFileSync(join(PGLITE_TEMPLATE_DIR, TEMPLATE_DATA_FILE), join(staleTemplate, TEMPLATE_DATA_FILE))
		writeFileSync(
			join(staleTemplate, TEMPLATE_MANIFEST_FILE),
			JSON.stringify({ ...installedVersions(), pglite: '0.0.1' }),
		)
	})
	afterAll(() => rmSync(root, { recursive: true, force: true }))

	it('was made with the installed PGlite and pgvector', () => {
		const manifest = JSON.parse(readFileSync(join(PGLITE_TEMPLATE_DIR, TEMPLATE_MANIFEST_FILE), 'utf8'))
		expect(manifest, 'the PGlite template is stale: run `bun run pglite-template` and commit it').toEqual(
			installedVersions(),
		)
	})

	it('counts memory://, a missing and an empty directory as new stores, and nothing else', () => {
		const empty = join(root, 'empty')
		mkdirSync(empty)
		const used = join(root, 'used')
		mkdirSync(used)
		writeFileSync(join(used, 'PG_VERSION'), '17\n')
		expect([isNewStore('memory://'), isNewStore(join(root, 'missing')), isNewStore(empty)]).toEqual([true, true, true])
		expect(isNewStore(used)).toBe(false)
	})

	it(
		'creates a new store on a directory path that migrates, takes vectors and keeps them across a reopen',
		async () => {
			const dataDir = join(root, 'new-store')
			const logger = recordingLogger()
			const storage = storagePostgres({ dataDir })
			await storage.init?.({ ...context(), logger })
			expect(logger.warnings).toEqual([])
			const scope = { orgId: (await storage.orgs.create('template org')).id }
			const { document } = await storage.documents.upsert(scope, newDocument())
			await storage.chunks.stage(document.id, [textChunk({ content: 'kept words', vector: vec(1) }, 0)])
			expect(await storage.chunks.publish(document.id)).toBe(1)
			await storage.close?.()

			const driver = await openPglite(dataDir)
			expect(await systemIdentifier(driver)).toBe(templateId)
			await driver.close()

			const reopened = storagePostgres({ dataDir })
			await reopened.init?.(context())
			try {
				const hits = await reopened.search.chunksByVector(scope, {
					containerTags: null,
					vector: vec(1),
					terms: [],
					limit: 10,
				})
				const chunks = await reopened.chunks.list(scope, document.id)
				expect(chunks.map((chunk) => chunk.content)).toEqual(['kept words'])
				expect(hits.map((hit) => hit.chunkId)).toEqual([chunks[0]!.id])
			} finally {
				await reopened.close?.()
			}
		},
		SLOW,
	)

	it(
		'opens an existing store as it is, never replacing it with the template',
		async () => {
			const dataDir = join(root, 'existing-store')
			const created = await openPglite(dataDir, undefined, { templateDir: staleTemplate, logger: recordingLogger() })
			const ownId = await systemIdentifier(created)
			await created.db.exec("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')")
			await created.close()
			expect(ownId).not.toBe(templateId)

			const logger = recordingLogger()
			const reopened = await openPglite(dataDir, undefined, { logger })
			try {
				expect(await systemIdentifier(reopened)).toBe(ownId)
				expect(await reopened.db.query('SELECT note FROM kept')).toEqual([{ note: 'still here' }])
				expect(logger.warnings).toEqual([])
			} finally {
				await reopened.close()
			}
		},
		SLOW,
	)

	it(
		'falls back to initdb with one warning when the template was made with other versions',
		async () => {
			const logger = recordingLogger()
			const driver = await openPglite('memory://', undefined, { templateDir: staleTemplate, logger })
			try {
				expect(logger.warnings).toHaveLength(1)
				expect(logger.warnings[0]).toContain('PGlite 0.0.1')
				expect(logger.warnings[0]).toContain('bun run pglite-template')
				expect(await systemIdentifier(driver)).not.toBe(templateId)
				await migrate(driver.db, TEST_VECTOR_SPACE)
				await driver.db.exec("INSERT INTO orgs (id, name) VALUES ('org1', 'one')")
				expect(await driver.db.query('SELECT name FROM orgs')).toEqual([{ name: 'one' }])
			} finally {
				await driver.close()
			}
		},
		SLOW,
	)

	it(
		'falls back to initdb when the template is missing',
		async () => {
			const logger = recordingLogger()
			const driver = await openPglite('memory://', undefined, { templateDir: join(root, 'no-template'), logger })
			try {
				expect(logger.warnings).toHaveLength(1)
				expect(await systemIdentifier(driver)).not.toBe(templateId)
				expect(await driver.db.query('SELECT 1 AS one')).toEqual([{ one: 1 }])
			} finally {
				await driver.close()
			}
		},
		SLOW,
	)
})
