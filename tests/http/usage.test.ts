import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../core/logger.ts'
import { createUsageMeter } from '../../core/usage/meter.ts'
import { createRateLimiter } from '../../core/usage/rate-limiter.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { run, spawnServer } from '../../testkit/process.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('usage counters and quotas', (driver) => {
	let t: TestService
	let otherKey: string
	beforeAll(async () => {
		t = await startTestService(driver, { env: { MEMORY_RATE_LIMIT_PER_MINUTE: '40' } })
		otherKey = await t.createKey('quota-free')
	}, 60_000)
	afterAll(() => t.stop())

	it('counts documents, characters and searches per organization', async () => {
		await t.json('POST', '/v3/documents', { content: 'twelve chars', containerTag: 'usage' })
		await t.json('POST', '/v3/documents', { content: 'abc', containerTag: 'usage' })
		await t.json('POST', '/v3/search', { q: 'chars' })
		const report = await t.json('GET', '/v3/usage')
		expect(report.status).toBe(200)
		expect(report.body.totals).toMatchObject({ documents: 2, characters: 15, searches: 1, profiles: 0 })
		expect(report.body.daily.length).toBeGreaterThan(0)
		const other = await t.json('GET', '/v3/usage', undefined, otherKey)
		expect(other.body.totals).toMatchObject({ documents: 0, searches: 0 })
		const stored = await t.service.plugins.storage.usage.daily(report.body.orgId, report.body.since)
		expect(stored.find((row) => row.metric === 'characters')?.amount).toBe(15)
		expect((await t.json('GET', '/v3/usage?since=yesterday')).status).toBe(400)
	})

	it('answers 402 with an error body once the search quota is used up', async () => {
		const orgId = (await t.json('GET', '/v3/usage')).body.orgId
		const used = (await t.json('GET', '/v3/usage')).body.totals.searches
		await t.service.plugins.storage.usage.setQuota(orgId, 'searches', { period: 'month', max: used + 2 })
		await Bun.sleep(2100) // the meter caches quotas for two seconds
		expect((await t.json('POST', '/v3/search', { q: 'one' })).status).toBe(200)
		expect((await t.json('POST', '/v3/search', { q: 'two' })).status).toBe(200)
		const refused = await t.json('POST', '/v3/search', { q: 'three' })
		expect(refused.status).toBe(402)
		expect(refused.body).toMatchObject({ error: 'Quota exhausted', details: expect.stringContaining('searches') })
		expect((await t.json('POST', '/v3/search', { q: 'other org' }, otherKey)).status).toBe(200)
		await t.service.plugins.storage.usage.setQuota(orgId, 'searches', null)
	})

	it('still counts a search written to storage between two quota checks', async () => {
		const storage = t.service.plugins.storage
		const meter = createUsageMeter({ storage, logger: createLogger('error'), flushMs: 3_600_000 })
		const orgId = (await t.json('GET', '/v3/usage')).body.orgId
		const used = (await t.json('GET', '/v3/usage')).body.totals.searches
		await storage.usage.setQuota(orgId, 'searches', { period: 'day', max: used + 1 })
		try {
			await meter.assertWithinQuota(orgId, 'searches')
			meter.record(orgId, 'searches')
			// The write lands while the quota's totals are still cached from before it.
			await meter.flush()
			await expect(meter.assertWithinQuota(orgId, 'searches')).rejects.toMatchObject({ status: 402 })
		} finally {
			await meter.stop()
			await storage.usage.setQuota(orgId, 'searches', null)
		}
	})

	it('rate-limits each key with 429 and Retry-After', async () => {
		const key = await t.createKey('rate-limited')
		const statuses: number[] = []
		let retryAfter: string | null = null
		for (let i = 0; i < 45; i++) {
			const response = await t.request('GET', '/v3/settings', { key })
			statuses.push(response.status)
			if (response.status === 429) retryAfter = response.headers.get('retry-after')
		}
		expect(statuses.filter((s) => s === 200)).toHaveLength(40)
		expect(statuses.at(-1)).toBe(429)
		expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
		expect((await t.request('GET', '/v3/settings', { key: otherKey })).status).toBe(200)
	})
})

describe('rate limiter', () => {
	it('refills tokens over time', () => {
		let now = 0
		const take = createRateLimiter(60, () => now)
		for (let i = 0; i < 60; i++) take('k')
		expect(() => take('k')).toThrow('Too many requests')
		now += 1000
		expect(() => take('k')).not.toThrow()
		expect(() => take('k')).toThrow()
	})

	it('is off at zero', () => {
		const take = createRateLimiter(0)
		for (let i = 0; i < 1000; i++) take('k')
	})
})

describe('usage CLI', () => {
	it('sets a quota that the server enforces, and shows the counters', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'memory-usage-cli-'))
		const env = { MEMORY_DATA_DIR: dataDir }
		try {
			const created = await run(
				[process.execPath, 'server/cli/keys.ts', 'create', '--name', 'cli', '--org', 'acme'],
				env,
			)
			const key = created.stdout.trim().split('\n').at(-1)!
			const cli = (args: string[]) => run([process.execPath, 'server/cli/usage.ts', ...args], env)
			expect((await cli(['quota', '--org', 'acme', '--metric', 'searches'])).code).toBe(2)
			expect((await cli(['show', '--org', 'nobody'])).stderr).toContain('no organization named "nobody"')
			const quota = await cli(['quota', '--org', 'acme', '--metric', 'searches', '--period', 'day', '--max', '1'])
			expect(quota.stdout).toContain('Quota set: searches 1 per day.')

			const server = await spawnServer(env)
			const search = () =>
				fetch(`${server.url}/v3/search`, {
					method: 'POST',
					headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
					body: JSON.stringify({ q: 'anything' }),
				}).then((response) => response.status)
			expect(await search()).toBe(200)
			expect(await search()).toBe(402)
			await server.kill()

			const shown = await cli(['show', '--org', 'acme'])
			expect(shown.code).toBe(0)
			expect(shown.stdout).toMatch(/searches\s+1\n/)
			expect(shown.stdout).toContain('quota: searches 1 per day')
		} finally {
			rmSync(dataDir, { recursive: true, force: true })
		}
	}, 60_000)
})
