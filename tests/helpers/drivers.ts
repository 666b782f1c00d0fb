import { describe } from 'bun:test'
import { TEST_DATABASE_URL } from './postgres.ts'
import type { Driver } from './service.ts'

/** Registers the suite once per storage driver; the PostgreSQL one shows as skipped when no server is configured. */
export function describeEachDriver(label: string, suite: (driver: Driver) => void) {
	describe(`${label} (embedded PGlite)`, () => suite('pglite'))
	describe.skipIf(!TEST_DATABASE_URL)(`${label} (PostgreSQL)`, () => suite('postgres'))
}
