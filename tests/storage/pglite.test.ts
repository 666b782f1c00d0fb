import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Driver } from '../../plugins/storage-postgres/db.ts'
import { openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { migrate } from '../../plugins/storage-postgres/queries/index.ts'
import { connectionStorageContract } from '../../testkit/contract/connection-storage.contract.ts'
import { organizationContract } from '../../testkit/contract/organization.contract.ts'
import { searchPlansContract } from '../../testkit/contract/search-plans.ts'
import { storageContract, TEST_VECTOR_SPACE } from '../../testkit/contract/storage.contract.ts'

storageContract('storage-postgres on embedded PGlite', async () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'storage-pglite-'))
	return {
		storage: storagePostgres({ dataDir }),
		reopen: async () => storagePostgres({ dataDir }),
		cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
	}
})

organizationContract('storage-postgres on embedded PGlite: organizations', async () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'storage-pglite-org-'))
	return {
		storage: storagePostgres({ dataDir }),
		reopen: async () => storagePostgres({ dataDir }),
		cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
	}
})

connectionStorageContract('storage-postgres on embedded PGlite: connections', async () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'storage-pglite-connections-'))
	return {
		storage: storagePostgres({ dataDir }),
		reopen: async () => storagePostgres({ dataDir }),
		cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
	}
})

describe('storage-postgres on embedded PGlite: query plans', () => {
	let driver: Driver
	beforeAll(async () => {
		driver = await openPglite('memory://')
		await migrate(driver.db, TEST_VECTOR_SPACE)
	})
	afterAll(() => driver.close())

	searchPlansContract(() => driver)

	it('prepares a statement once and still plans each execution for its parameters', async () => {
		const text = 'SELECT $1::int + 1 AS next'
		for (const n of [1, 2, 3]) expect(await driver.db.query(text, [n])).toEqual([{ next: n + 1 }])
		const named = await driver.db.query('SELECT statement FROM pg_prepared_statements WHERE statement = $1', [text])
		expect(named).toHaveLength(1)
		await driver.db.transaction(async (tx) => {
			expect(await tx.query('SELECT current_setting($1) AS mode', ['plan_cache_mode'])).toEqual([
				{ mode: 'force_custom_plan' },
			])
		})
	})
})
