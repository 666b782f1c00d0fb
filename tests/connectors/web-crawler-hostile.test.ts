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

	it('takes a site answering 403 to the crawler as refusing it, not as empty: the run fails and nothing is deleted', async () => {
		const sync = harness()
		await sync.run(crawler().sync)
		expect(sync.documents.size).toBe(2)
		// A bot wall: every page answers 403 with a challenge page.
		const wall = { status: 403, body: '<html><title>Just a moment...</title></html>', type: 'text/html' }
		site.routes.set('/docs/', wall)
		site.routes.set('/docs/a.html', wall)
		const events = await sync.run(crawler().sync)
		expect(eventsOf(events, 'failure').some((event) => event.error.includes('refuses the crawler (HTTP 403'))).toBe(
			true,
		)
		expect(eventsOf(events, 'present')).toHaveLength(0)
		expect(sync.documents.size).toBe(2)
	})

	it('fails the run with the reason when the start URL redirects to another site, never a silent empty import', async () => {
		site.routes.set('/docs/', { status: 301, headers: { location: 'http://elsewhere.test/docs/' } })
		const sync = harness()
		const events = await sync.run(crawler().sync)
		expect(sync.documents.size).toBe(0)
		const failure = eventsOf(events, 'failure').find((event) => event.externalId === null)
		expect(failure?.error).toContain('the start URL leads to another site')
		expect(failure?.error).toContain('http://elsewhere.test/docs/')
		expect(eventsOf(events, 'present')).toHaveLength(0)
	})

	it('decodes pages in the charset they declare: HTTP header, meta charset, byte order mark', async () => {
		const latin = (text: string) => new Uint8Array([...text].map((char) => char.charCodeAt(0)))
		const page = (title: string) => htmlPage(title, `Caf\u00e9 cr\u00e8me in ${title}`)
		site.page('/docs/', htmlPage('Docs home', 'Welcome', ['header.html', 'meta.html', 'bom.html']))
		site.routes.set('/docs/header.html', { body: latin(page('Header')), type: 'text/html; charset=windows-1252' })
		site.routes.set('/docs/meta.html', {
			body: latin(page('Meta').replace('<head>', '<head><meta charset="iso-8859-1">')),
			type: 'text/html',
		})
		site.routes.set('/docs/bom.html', {
			body: new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(page('Bom'))]),
			type: 'text/html; charset=windows-1252',
		})
		const sync = harness()
		await sync.run(crawler().sync)
		for (const name of ['header', 'meta', 'bom']) {
			expect(sync.documents.get(`${site.origin}/docs/${name}.html`)?.content).toContain('Caf\u00e9 cr\u00e8me')
		}
	})

	it('bounds fetches by the page budget, not only imports', async () => {
		const links = Array.from({ length: 100 }, (_, index) => `/docs/skip/${index}.html`)
		site.page('/docs/', htmlPage('Docs home', 'Welcome', links))
		for (const link of links) site.page(link, htmlPage(link, `Page ${link}`))
		const sync = syncHarness({ metadata: { startUrl: `${site.origin}/docs/`, include: '/docs/keep/**' } })
		sync.ctx.documentLimit = 5
		await sync.run(crawler().sync)
		// Three fetches per page of budget.
		const pages = site.requests.filter((request) => request.path.startsWith('/docs/'))
		expect(pages.length).toBeLessThanOrEqual(15)
	})

	it('waits what Retry-After asks on a 429 or 503, then reads the page', async () => {
		let busy = 2
		site.routes.set('/docs/a.html', () =>
			busy-- > 0
				? { status: busy === 1 ? 429 : 503, body: 'slow down', headers: { 'retry-after': '1' } }
				: { body: htmlPage('Tomatoes', 'Tomatoes need six hours of sun'), type: 'text/html' },
		)
		const sync = harness()
		const events = await sync.run(crawler().sync)
		expect(eventsOf(events, 'failure')).toEqual([])
		expect(sync.documents.has(`${site.origin}/docs/a.html`)).toBe(true)
		const tries = site.requests.filter((request) => request.path === '/docs/a.html')
		expect(tries).toHaveLength(3)
		expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(950)
		expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(950)
	}, 30_000)

	it('checks a redirect against robots.txt before following it', async () => {
		site.routes.set('/robots.txt', { body: 'User-agent: *\nDisallow: /docs/private/\n' })
		site.page('/docs/', htmlPage('Docs home', 'Welcome', ['a.html', 'sneaky.html']))
		site.routes.set('/docs/sneaky.html', { status: 302, headers: { location: '/docs/private/secret.html' } })
		site.page('/docs/private/secret.html', htmlPage('Secret', 'Robots keep this out'))
		const sync = harness()
		await sync.run(crawler().sync)
		expect(site.requests.some((request) => request.path.startsWith('/docs/private/'))).toBe(false)
	})

	it('reads the first 512 KiB of a robots.txt larger than that (RFC 9309 §2.5), not "allow all"', async () => {
		const padding = `# ${'x'.repeat(98)}\n`.repeat(Math.ceil((MiB * 2) / 100))
		site.routes.set('/robots.txt', {
			body: `User-agent: *\nDisallow: /docs/private/\n${padding}Disallow: /docs/a.html\n`,
			type: 'text/plain',
		})
		site.page('/docs/', htmlPage('Docs home', 'Welcome', ['a.html', 'private/secret.html']))
		site.page('/docs/private/secret.html', htmlPage('Secret', 'Robots keep this out'))
		const sync = harness()
		// A robots.txt larger than the largest page read.
		const events = await sync.run(crawler({ maxPageBytes: MiB }).sync)
		expect(eventsOf(events, 'failure')).toEqual([])
		expect(site.requests.some((request) => request.path.startsWith('/docs/private/'))).toBe(false)
		// Rules past the part read do not apply.
		expect(sync.documents.has(`${site.origin}/docs/a.html`)).toBe(true)
	})

	it('crawls nothing when robots.txt cannot be read for a TLS failure (RFC 9309 §2.3.1.4: unreachable)', async () => {
		const secure = startWebsite({ https: true })
		try {
			// The certificate is not trusted here: every connection fails its TLS handshake.
			const sync = syncHarness({ metadata: { startUrl: `https://127.0.0.1:${secure.httpsPort}/docs/` } })
			const events = await sync.run(crawler().sync)
			const failures = eventsOf(events, 'failure')
			expect(failures).toHaveLength(1)
			expect(failures[0]!.error).toContain('/robots.txt could not be read')
			expect(eventsOf(events, 'present')).toEqual([])
		} finally {
			secure.stop()
		}
	})

	it('honours X-Robots-Tag for its agent and imports plain-text and Markdown pages', async () => {
		const html = (title: string, links: string[] = []) => htmlPage(title, `The ${title} page on pruning`, links)
		site.page(
			'/docs/',
			html('Docs home', ['hidden.html', 'ours.html', 'other-bot.html', 'notes.txt', 'guide.md', 'hidden.pdf']),
		)
		const tagged = (body: string, tag: string) => ({ body, type: 'text/html', headers: { 'x-robots-tag': tag } })
		site.routes.set('/docs/hidden.html', tagged(html('Hidden', ['behind.html']), 'noindex'))
		site.page('/docs/behind.html', html('Behind'))
		site.routes.set('/docs/ours.html', tagged(html('Ours', ['unfollowed.html']), 'memory-service-crawler: none'))
		site.page('/docs/unfollowed.html', html('Unfollowed'))
		site.routes.set('/docs/other-bot.html', tagged(html('Other bot'), 'googlebot: noindex, nofollow'))
		site.routes.set('/docs/hidden.pdf', {
			body: '%PDF-1.4 not read',
			type: 'application/pdf',
			headers: { 'x-robots-tag': 'noindex' },
		})
		site.routes.set('/docs/notes.txt', { body: 'Plant garlic in October.\n', type: 'text/plain; charset=utf-8' })
		site.routes.set('/docs/guide.md', { body: '# Pruning guide\n\nCut above a bud.\n', type: 'text/markdown' })
		const sync = harness()
		const events = await sync.run(crawler({ userAgent: 'memory-service-crawler/0.1' }).sync)
		expect(eventsOf(events, 'failure')).toEqual([])
		const paths = [...sync.documents.keys()].map((id) => id.replace(site.origin, '')).sort()
		expect(paths).toEqual(['/docs/', '/docs/behind.html', '/docs/guide.md', '/docs/notes.txt', '/docs/other-bot.html'])
		expect(site.requests.some((request) => request.path === '/docs/unfollowed.html')).toBe(false)
		expect(sync.documents.get(`${site.origin}/docs/notes.txt`)?.content).toBe('Plant garlic in October.\n')
		expect(sync.documents.get(`${site.origin}/docs/guide.md`)?.title).toBe('Pruning guide')
	})

	it('honours a recrawl interval over a week, and spaces on-demand crawls by the minimum interval', async () => {
		const sync = harness()
		const pageReads = () => site.requests.filter((request) => request.path.startsWith('/docs/')).length
		const connector = crawler({ recrawlEveryHours: 24 * 30, minImportIntervalMinutes: 60 })
		sync.ctx.trigger = 'manual'
		await sync.run(connector.sync)
		const first = pageReads()
		expect(first).toBeGreaterThan(0)
		// An on-demand import right after: too soon.
		await sync.run(connector.sync)
		expect(pageReads()).toBe(first)
		const endedAgo = (hours: number) => {
			const cursor = sync.cursor as { crawledAt: string }
			sync.cursor = { ...cursor, crawledAt: new Date(Date.now() - hours * 3_600_000).toISOString() }
		}
		// The weekly schedule ticks a week and two weeks after a monthly crawl: not due yet.
		sync.ctx.trigger = 'schedule'
		for (const hours of [168, 336]) {
			endedAgo(hours)
			await sync.run(connector.sync)
			expect(pageReads()).toBe(first)
		}
		// Four weeks on, it is (the schedule's weekly ticks land within half a week of the interval).
		endedAgo(24 * 28)
		await sync.run(connector.sync)
		expect(pageReads()).toBeGreaterThan(first)
		expect(sync.documents.size).toBe(2)
		// An on-demand import two hours after a crawl goes ahead.
		const second = pageReads()
		sync.ctx.trigger = 'manual'
		endedAgo(2)
		await sync.run(connector.sync)
		expect(pageReads()).toBeGreaterThan(second)
	})

	it('counts only a finished crawl as the last one: a failed run is retried at once', async () => {
		const sync = harness()
		const pageReads = () => site.requests.filter((request) => request.path.startsWith('/docs/')).length
		const connector = crawler({ minImportIntervalMinutes: 60 })
		sync.ctx.trigger = 'manual'
		await sync.run(connector.sync)
		const cursor = sync.cursor as { crawledAt: string }
		sync.cursor = { ...cursor, crawledAt: new Date(Date.now() - 2 * 3_600_000).toISOString() }
		// robots.txt unreadable: the run fails, nothing is crawled.
		site.routes.set('/robots.txt', { status: 503, body: 'busy' })
		await sync.run(connector.sync)
		const afterFailure = pageReads()
		// The site is back: an on-demand import goes ahead, two hours after the last crawl that finished.
		site.routes.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n' })
		await sync.run(connector.sync)
		expect(pageReads()).toBeGreaterThan(afterFailure)
	})

	it('paces one host across crawls: two connections on one site take turns', async () => {
		site.routes.set('/robots.txt', { body: 'User-agent: *\nCrawl-delay: 0.2\n' })
		const links = Array.from({ length: 4 }, (_, index) => `/docs/p${index}.html`)
		site.page('/docs/', htmlPage('Docs home', 'Welcome', links))
		for (const link of links) site.page(link, htmlPage(link, `Page ${link}`))
		await Promise.all([harness().run(crawler().sync), harness().run(crawler().sync)])
		// Each crawl knows the Crawl-delay once it has read robots.txt; from then on, requests are spaced by it.
		const times = site.requests
			.filter((request) => request.path !== '/robots.txt')
			.map((request) => request.at)
			.sort((a, b) => a - b)
		expect(times.length).toBeGreaterThan(10)
		for (let index = 1; index < times.length; index++)
			expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(150)
	}, 30_000)
})
