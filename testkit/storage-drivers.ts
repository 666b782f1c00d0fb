import { describe } from 'bun:test'
import type { Driver } from '../plugins/storage-postgres/db.ts'
import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { openPostgres } from '../plugins/storage-postgres/drivers/postgres.ts'
import { createTestDatabase, describePostgres } from './postgres.ts'

export interface OpenedDriver {
	driver: Driver
	close(): Promise<void>
}

/**
 * Registers the suite once per store of the storage plugin; `open` gives a fresh, unmigrated driver on each call: an
 * in-memory PGlite, or a PostgreSQL database of its own that `close` drops.
 */
export function describeEachStorageDriver(label: string, suite: (open: () => Promise<OpenedDriver>) => void) {
	describe(`${label} (embedded)`, () =>
		suite(async () => {
			const driver = await openPglite('memory://')
			return { driver, close: () => driver.close() }
		}))
	describePostgres(`${label} (PostgreSQL)`, () =>
		suite(async () => {
			const database = await createTestDatabase('storage')
			const driver = openPostgres(database.url)
			return {
				driver,
				close: async () => {
					await driver.close()
					await database.drop()
				},
			}
		}),
	)
}
