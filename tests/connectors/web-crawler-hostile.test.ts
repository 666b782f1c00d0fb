import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { webCrawler } from '../../connectors/web-crawler/index.ts'
import type { WebCrawlerOptions } from '../../connectors/web-crawler/options.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { gzipBomb, gzipped, htmlPage, sitemapXml, startWebsite, type Website } from '../../testkit/emulators/website.ts'

const MiB = 1024 * 1024

describe('web-crawler connector: hostile and unusual sites', () => {
	let site: Website
	const crawler = (options: WebCrawlerOptions = {}) =>
		webCrawler({ urlAllowlist: ['127.0.0.1'], delayMs: 0, ...options })
	const harness = (metadata: Record<string, string | number | boolean> = {}) =>
		syncHarness({ metadata: { startUrl: `${site.origin}/docs/`, ...metadata } })

	beforeEach(() => {
		site = startWebsite()
		site.routes.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.origin}/sitemap.xml.gz\n` })
		site.page('/docs/', htmlPage('Docs home', 'Welcome to the garden handbook', ['a.html']))
		site.page('/docs/a.html', htmlPage('Tomatoes', 'Tomatoes need six hours of sun'))
	})
	afterEach(() => site.stop())

	it('refuses a gzip sitemap that inflates past the limit, with memory bounded and the event loop free', async () => {
		// 1 MiB on the wire, about 1 GiB inflated.
		site.routes.set('/sitemap.xml.gz', { body: gzipBomb(MiB), type: 'application/gzip' })
		const sync = harness()
		let peak = process.memoryUsage().rss
		const before = peak
		let longestGap = 0
		let last = performance.now()
		const watch = setInterval(() => {
			const now = performance.now()
			longestGap = Math.max(longestGap, now - last)
			last = now
			peak = Math.max(peak, process.memoryUsage().rss)
		}, 10)
		try {
			const events = await sync.run(crawler().sync)
			const refused = eventsOf(events, 'failure').find((event) => event.error.startsWith('SITEMAP_TOO_LARGE'))
			expect(refused?.error).toContain('/sitemap.xml.gz')
			expect(refused?.error).toContain('50 MiB')
		} finally {
			clearInterval(watch)
		}
		// The rest of the site is crawled all the same.
		expect(sync.documents.has(`${site.origin}/docs/a.html`)).toBe(true)
		expect(longestGap).toBeLessThan(500)
		expect(peak - before).toBeLessThan(400 * MiB)
	}, 30_000)

	it('deletes nothing that only a refused sitemap could list', async () => {
		site.routes.set('/sitemap.xml.gz', { body: gzipped(sitemapXml([`${site.origin}/docs/orphan.html`])) })
		site.page('/docs/orphan.html', htmlPage('Orphan', 'Only the sitemap knows this page about mulch'))
		const sync = harness()
		await sync.run(crawler().sync)
		expect(sync.documents.has(`${site.origin}/docs/orphan.html`)).toBe(true)
		site.routes.set('/sitemap.xml.gz', { body: gzipBomb(MiB) })
		const events = await sync.run(crawler().sync)
		expect(eventsOf(events, 'failure').some((event) => event.error.startsWith('SITEMAP_TOO_LARGE'))).toBe(true)
		expect(sync.documents.has(`${site.origin}/docs/orphan.html`)).toBe(true)
	}, 30_000)
})
