import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Driver } from '../../plugins/storage-postgres/db.ts'
import { MAX_PREPARED_TEXTS, openPostgres } from '../../plugins/storage-postgres/drivers/postgres.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { migrate } from '../../plugins/storage-postgres/queries/index.ts'
import { MIGRATIONS } from '../../plugins/storage-postgres/queries/schema.ts'
import { connectionStorageContract } from '../../testkit/contract/connection-storage.contract.ts'
import { organizationContract } from '../../testkit/contract/organization.contract.ts'
import {
	expectBoundedCommonWordsSearch,
	expectCommonPairsAfterRarerPairs,
	expectCommonWordsReadInBackground,
	expectCommonWordTierClosed,
	expectFilledTierClosesTheNext,
	expectLargeScopeSearchedByTiers,
	expectRarerWordTierReadByIndex,
	expectShortTierOpensTheNext,
	seededSearchPlans,
} from '../../testkit/contract/search-plans.ts'
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
		const driver = driverOnOwnDatabase('storage_plans', { migrated: true })

		it('searches with the HNSW index and the full-text GIN index', async () => {
			const plans = await seededSearchPlans(driver())
			expect(plans.vector).toContain('Index Scan using chunks_embedding_idx')
			expect(plans.text).toContain('Bitmap Index Scan on chunks_tsv_idx')
		})

		it('reads a bounded number of rows for words that most chunks hold', async () => {
			await expectBoundedCommonWordsSearch(driver())
		})

		it('searches a scope with more matches than one scan ranks by the match tiers', async () => {
			await expectLargeScopeSearchedByTiers(driver())
		})

		it('skips an "at least k of the words" tier once the tiers before it filled its cut', async () => {
			await expectFilledTierClosesTheNext(driver())
		})

		it('runs an "at least k of the words" tier while the tiers before it fall short', async () => {
			await expectShortTierOpensTheNext(driver())
		})

		it('skips the tier of a word the statistics count as common once the tiers of several words filled', async () => {
			await expectCommonWordTierClosed(driver())
		})

		it('runs the pairs of common words of a tier only while the pairs holding a rarer word fall short', async () => {
			await expectCommonPairsAfterRarerPairs(driver())
		})

		it('reads the match tiers through the index, not the table in its stored order', async () => {
			await expectRarerWordTierReadByIndex(driver())
		})

		it('reads which query words are common from the statistics in the background', async () => {
			await expectCommonWordsReadInBackground(driver())
		})
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
