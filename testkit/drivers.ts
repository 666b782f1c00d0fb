import { describe } from 'bun:test'
import { describePostgres } from './postgres.ts'
import type { Driver } from './service.ts'

/** Registers the suite once per storage driver; the PostgreSQL one shows as skipped with MEMORY_TEST_POSTGRES=skip. */
export function describeEachDriver(label: string, suite: (driver: Driver) => void) {
	describe(`${label} (embedded PGlite)`, () => suite('pglite'))
	describePostgres(`${label} (PostgreSQL)`, () => suite('postgres'))
}
