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

	it('searches with the HNSW index and the full-text GIN index', async () => {
		const plans = await seededSearchPlans(driver)
		expect(plans.vector).toContain('Index Scan using chunks_embedding_idx')
		expect(plans.text).toContain('Bitmap Index Scan on chunks_tsv_idx')
	})

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

	it('reads a bounded number of rows for words that most chunks hold', async () => {
		await expectBoundedCommonWordsSearch(driver)
	})

	it('searches a scope with more matches than one scan ranks by the match tiers', async () => {
		await expectLargeScopeSearchedByTiers(driver)
	})

	it('skips an "at least k of the words" tier once the tiers before it filled its cut', async () => {
		await expectFilledTierClosesTheNext(driver)
	})

	it('runs an "at least k of the words" tier while the tiers before it fall short', async () => {
		await expectShortTierOpensTheNext(driver)
	})

	it('skips the tier of a word the statistics count as common once the tiers of several words filled', async () => {
		await expectCommonWordTierClosed(driver)
	})

	it('runs the pairs of common words of a tier only while the pairs holding a rarer word fall short', async () => {
		await expectCommonPairsAfterRarerPairs(driver)
	})

	it('reads the match tiers through the index, not the table in its stored order', async () => {
		await expectRarerWordTierReadByIndex(driver)
	})

	it('reads which query words are common from the statistics in the background', async () => {
		await expectCommonWordsReadInBackground(driver)
	})
})
