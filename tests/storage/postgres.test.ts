import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Driver } from '../../plugins/storage-postgres/db.ts'
import { MAX_PREPARED_TEXTS, openPostgres } from '../../plugins/storage-postgres/drivers/postgres.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { migrate } from '../../plugins/storage-postgres/queries/index.ts'
import { MIGRATIONS } from '../../plugins/storage-postgres/queries/schema.ts'
import { connectionStorageContract } from '../../testkit/contract/connection-storage.contract.ts'
import { organizationContract } from '../../testkit/contract/organization.contract.ts'
import { searchPlansContract } from '../../testkit/contract/search-plans.ts'
import { storageContract, TEST_VECTOR_SPACE } from '../../testkit/contract/storage.contract.ts'
import { createTestDatabase, describePostgres } from '../../testkit/postgres.ts'

describePostgres('storage-postgres on PostgreSQL', () => {
	storageContract('contract', async () => {
		const database = await createTestDatabase('storage_contract')
		return {
			storage: storagePostgres({ databaseUrl: database.url }),
			reopen: async () => storagePostgres({ databaseUrl: database.url }),
			cleanup: database.drop,
		}
	})

	organizationContract('organizations', async () => {
		const database = await createTestDatabase('storage_org')
		return {
			storage: storagePostgres({ databaseUrl: database.url }),
			reopen: async () => storagePostgres({ databaseUrl: database.url }),
			cleanup: database.drop,
		}
	})

	connectionStorageContract('connections', async () => {
		const database = await createTestDatabase('storage_connections')
		return {
			storage: storagePostgres({ databaseUrl: database.url }),
			reopen: async () => storagePostgres({ databaseUrl: database.url }),
			cleanup: database.drop,
		}
	})

	describe('query plans', () => {
		searchPlansContract(driverOnOwnDatabase('storage_plans', { migrated: true }))
	})

	describe('statements', () => {
		const driver = driverOnOwnDatabase('storage_prepared', { migrated: false })

		// A transaction keeps one connection, whose prepared statements pg_prepared_statements lists.
		const preparedTexts = async (tx: Driver['db']) =>
			(await tx.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).map(
				(row) => row.statement,
			)

		it('prepares a statement once per connection and still plans each execution for its parameters', async () => {
			await driver().db.transaction(async (tx) => {
				for (const n of [1, 2, 3]) expect(await tx.query('SELECT $1::int + 1 AS next', [n])).toEqual([{ next: n + 1 }])
				const texts = await preparedTexts(tx)
				expect(texts.filter((text) => text === 'SELECT $1::int + 1 AS next')).toHaveLength(1)
				expect(await tx.query('SELECT current_setting($1) AS mode', ['plan_cache_mode'])).toEqual([
					{ mode: 'force_custom_plan' },
				])
			})
		})

		it('stops preparing new texts beyond its bound and runs them all the same', async () => {
			await driver().db.transaction(async (tx) => {
				for (let i = 0; i <= MAX_PREPARED_TEXTS; i++) {
					expect(await tx.query(`SELECT $1::int + ${i} AS sum`, [1])).toEqual([{ sum: i + 1 }])
				}
				const texts = await preparedTexts(tx)
				expect(texts).toContain('SELECT $1::int + 0 AS sum')
				expect(texts).not.toContain(`SELECT $1::int + ${MAX_PREPARED_TEXTS} AS sum`)
			})
		})
	})

	describe('startup', () => {
		it('lets two processes that start together migrate the same new database', async () => {
			const database = await createTestDatabase('storage_race')
			const drivers = [openPostgres(database.url), openPostgres(database.url), openPostgres(database.url)]
			try {
				await Promise.all(drivers.map((driver) => migrate(driver.db, TEST_VECTOR_SPACE)))
				const applied = await drivers[0]!.db.query<{ version: number }>('SELECT version FROM schema_migrations')
				expect(applied.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version))
			} finally {
				await Promise.all(drivers.map((driver) => driver.close()))
				await database.drop()
			}
		})
	})
})

/** A driver on a database of its own for the enclosing describe block, opened before its tests and dropped after. */
function driverOnOwnDatabase(name: string, options: { migrated: boolean }): () => Driver {
	let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined
	let driver: Driver | undefined
	beforeAll(async () => {
		database = await createTestDatabase(name)
		driver = openPostgres(database.url)
		if (options.migrated) await migrate(driver.db, TEST_VECTOR_SPACE)
	})
	afterAll(async () => {
		await driver?.close()
		await database?.drop()
	})
	return () => driver!
}
