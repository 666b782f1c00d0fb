import { afterAll, beforeAll, expect, it } from 'bun:test'
import { join } from 'node:path'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { context } from '../../testkit/contract/storage.contract.ts'
import { htmlPage, startWebsite, type Website } from '../../testkit/emulators/website.ts'
import { createTestDatabase, describePostgres } from '../../testkit/postgres.ts'

const SCRIPT = join(import.meta.dir, '../../testkit/scripts/crawl-sharing-turns.ts')

describePostgres('web-crawler pacing across worker processes', () => {
	let site: Website
	let database: { url: string; drop: () => Promise<void> }
	beforeAll(async () => {
		database = await createTestDatabase('crawl_pacing')
		// Migrated once, before the two workers start.
		const storage = storagePostgres({ databaseUrl: database.url })
		await storage.init?.(context())
		await storage.close?.()
		site = startWebsite()
		site.routes.set('/robots.txt', { body: 'User-agent: *\nCrawl-delay: 0.3\n', type: 'text/plain' })
		const links = Array.from({ length: 5 }, (_, index) => `/docs/p${index}.html`)
		site.page('/docs/', htmlPage('Docs home', 'Welcome to the garden handbook', links))
		for (const link of links) site.page(link, htmlPage(link, `Page ${link} on pruning`))
		site.latencyMs = 20
	})
	afterAll(async () => {
		site.stop()
		await database.drop()
	})

	it('keeps the Crawl-delay between two processes crawling one host: their requests take turns through the store', async () => {
		const crawl = () =>
			Bun.spawn([process.execPath, SCRIPT, `${site.origin}/docs/`], {
				env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
				stdout: 'pipe',
				stderr: 'pipe',
			})
		const workers = [crawl(), crawl()]
		const outputs = await Promise.all(
			workers.map(async (worker) => {
				const [stdout, stderr] = await Promise.all([
					new Response(worker.stdout).text(),
					new Response(worker.stderr).text(),
				])
				expect(await worker.exited).toBe(0)
				return { stdout, stderr }
			}),
		)
		for (const { stdout } of outputs) expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ documents: 6 })
		// Each worker reads robots.txt before it knows the delay; every later request, from either, waits it out.
		const pages = site.requests.filter((request) => request.path !== '/robots.txt')
		// Six pages and /sitemap.xml (not there), each read by both.
		expect(pages).toHaveLength(14)
		expect(pages.every((request) => request.inFlight === 0)).toBe(true)
		const times = pages.map((request) => request.at).sort((a, b) => a - b)
		for (let index = 1; index < times.length; index++) {
			expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(300 - 5)
		}
	}, 60_000)
})
