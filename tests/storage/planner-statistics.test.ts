import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import type { Db, Driver } from '../../plugins/storage-postgres/db.ts'
import { openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import { migrate } from '../../plugins/storage-postgres/queries/index.ts'
import { EMBEDDED_STATISTICS_TARGET, PlannerStatistics } from '../../plugins/storage-postgres/queries/statistics.ts'
import { TEST_VECTOR_SPACE } from '../../testkit/contract/storage.contract.ts'

/**
 * The embedded store's planner statistics: ANALYZE at start-up only when the last close did not save a count, with a
 * smaller sample than PostgreSQL's default.
 */
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

	it('samples the embedded store with a smaller statistics target, one table a statement, and restores the setting', async () => {
		await driver.db.exec(`INSERT INTO orgs (id, name) VALUES ('org1', 'one');
			INSERT INTO documents (id, org_id, container_tag, content, content_hash, type, task_type, status, dreaming, dreaming_status)
			SELECT 'doc' || i, 'org1', 'tag', 'x', 'h' || i, 'text', 'memory', 'done', 'instant', 'done' FROM generate_series(1, 500) AS i`)
		await new PlannerStatistics(() => db, { statisticsTarget: EMBEDDED_STATISTICS_TARGET }).refresh()
		expect(statements.filter((text) => text.startsWith('ANALYZE'))).toEqual([
			'ANALYZE documents',
			'ANALYZE chunks',
			'ANALYZE memories',
		])
		// 500 distinct ids: the histogram has as many buckets as the target allows.
		const [stats] = await driver.db.query<{ buckets: number }>(
			"SELECT array_length(histogram_bounds, 1) - 1 AS buckets FROM pg_stats WHERE tablename = 'documents' AND attname = 'id'",
		)
		expect(stats?.buckets).toBe(EMBEDDED_STATISTICS_TARGET)
		const [setting] = await driver.db.query<{ default_statistics_target: string }>('SHOW default_statistics_target')
		expect(setting?.default_statistics_target).toBe('100')
	})
})
