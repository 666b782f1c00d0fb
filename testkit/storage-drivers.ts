import { afterEach, beforeEach, describe } from 'bun:test'
import type { VectorSpace } from '../core/index.ts'
import type { Db } from '../plugins/storage-postgres/db.ts'
import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { openPostgres } from '../plugins/storage-postgres/drivers/postgres.ts'
import { migrate } from '../plugins/storage-postgres/queries/index.ts'
import { createTestDatabase, describePostgres } from './postgres.ts'

/**
 * Registers the suite once per store of the storage plugin. Each test gets a fresh store migrated for `space`,
 * through `db()`: an in-memory PGlite, or a PostgreSQL database of its own, dropped after the test.
 */
export function describeEachStorageDriver(label: string, space: VectorSpace, suite: (db: () => Db) => void) {
	const perTest = (open: () => Promise<{ db: Db; close(): Promise<void> }>) => () => {
		let opened: Awaited<ReturnType<typeof open>> | undefined
		beforeEach(async () => {
			opened = await open()
			await migrate(opened.db, space)
		}, 60_000)
		afterEach(() => opened?.close())
		suite(() => opened!.db)
	}
	describe(
		`${label} (embedded)`,
		perTest(async () => {
			const driver = await openPglite('memory://')
			return { db: driver.db, close: () => driver.close() }
		}),
	)
	describePostgres(
		`${label} (PostgreSQL)`,
		perTest(async () => {
			const database = await createTestDatabase('storage')
			const driver = openPostgres(database.url)
			return {
				db: driver.db,
				close: async () => {
					await driver.close()
					await database.drop()
				},
			}
		}),
	)
}
