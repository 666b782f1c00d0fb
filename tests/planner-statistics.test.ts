import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import type { Db, Driver } from '../plugins/storage-postgres/db.ts'
import { openPglite } from '../plugins/storage-postgres/drivers/pglite.ts'
import { migrate } from '../plugins/storage-postgres/queries/index.ts'
import { PlannerStatistics } from '../plugins/storage-postgres/queries/statistics.ts'
import { TEST_VECTOR_SPACE } from './contract/storage.contract.ts'

/** The embedded store's planner statistics: ANALYZE at start-up only when the last close did not save a count. */
describe('planner statistics of the embedded store', () => {
	let driver: Driver
	let statements: string[]
	let db: Db

	beforeEach(async () => {
		driver = await openPglite('memory://')
		await migrate(driver.db, TEST_VECTOR_SPACE)
		statements = []
		db = {
			...driver.db,
			exec: (text) => {
				statements.push(text)
				return driver.db.exec(text)
			},
		}
	})
	afterEach(() => driver.close())

	const analyzed = () => statements.some((text) => text.startsWith('ANALYZE'))

	it('analyzes a store that was never analyzed', async () => {
		await new PlannerStatistics(() => db).resume()
		expect(analyzed()).toBe(true)
	})

	it('skips ANALYZE after a clean close saved the count of changed rows, once', async () => {
		const first = new PlannerStatistics(() => db)
		await first.resume()
		await first.rowsChanged(10)
		await first.save()
		statements = []
		await new PlannerStatistics(() => db).resume()
		expect(analyzed()).toBe(false)
		// The saved count is consumed: without another clean close (a crash), the next start analyzes again.
		await new PlannerStatistics(() => db).resume()
		expect(analyzed()).toBe(true)
	})

	it('analyzes at start-up when the saved count is past the threshold', async () => {
		const first = new PlannerStatistics(() => db)
		await first.resume()
		await first.rowsChanged(49)
		await first.save()
		statements = []
		const second = new PlannerStatistics(() => db)
		await second.resume()
		expect(analyzed()).toBe(false)
		await second.rowsChanged(1)
		expect(analyzed()).toBe(true)
	})
})
