import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { webCrawler } from '../../connectors/web-crawler/index.ts'
import type { WebCrawlerOptions } from '../../connectors/web-crawler/options.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import {
	gzipped,
	htmlPage,
	sitemapIndexXml,
	sitemapXml,
	startWebsite,
	type Website,
} from '../../testkit/emulators/website.ts'
import { samplePdf } from '../../testkit/sample-files.ts'

const ROBOTS = (origin: string, delay = '') => `# Everyone else is kept out; the service's crawler has its own group.
User-agent: *
Disallow: /

User-agent: memory-service-crawler
Disallow: /docs/private/
${delay}
Sitemap: ${origin}/sitemap-index.xml
`

/** The test site: a docs section with every case the crawler must handle. */
async function buildSite(site: Website, delay = ''): Promise<void> {
	const o = site.origin
	site.routes.set('/robots.txt', { body: ROBOTS(o, delay), type: 'text/plain' })
	site.routes.set('/sitemap-index.xml', {
		body: sitemapIndexXml([`${o}/sitemap-docs.xml`, `${o}/sitemap-more.xml.gz`, 'http://elsewhere.test/sitemap.xml']),
		type: 'application/xml',
	})
	site.routes.set('/sitemap-docs.xml', {
		body: sitemapXml([`${o}/docs/orphan.html`, `${o}/docs/private/from-sitemap.html`]),
		type: 'application/xml',
	})
	site.routes.set('/sitemap-more.xml.gz', {
		body: gzipped(sitemapXml([`${o}/docs/gzipped-orphan.html`])),
		type: 'application/gzip',
	})
	site.page(
		'/docs/',
		htmlPage('Docs home', 'Welcome to the garden handbook', [
			'a.html',
			'/docs/b.html',
			'/docs/b.html?utm_source=feed',
			'/docs/alias.html',
			'/docs/private/secret.html',
			'/blog/outside.html',
			'http://elsewhere.test/page.html',
			'/docs/moved',
			'/docs/to-private',
			'/docs/report.pdf',
			'/docs/style.css',
			'/docs/changing.html',
			'/docs/vanishing.html',
			'/docs/deep/level1.html',
			'mailto:someone@example.com',
		]),
	)
	site.page('/docs/a.html', htmlPage('Tomatoes', 'Tomatoes need six hours of sun'))
	site.page('/docs/b.html', htmlPage('Compost', 'Compost turns kitchen scraps into soil'))
	site.page(
		'/docs/alias.html',
		htmlPage('Tomatoes again', 'A copy of the tomato page', [], `<link rel="canonical" href="${o}/docs/a.html">`),
	)
	site.page('/docs/orphan.html', htmlPage('Orphan', 'Only the sitemap knows this page about mulch'))
	site.page('/docs/gzipped-orphan.html', htmlPage('Gzipped orphan', 'The gzipped sitemap lists this page on bees'))
	site.page('/docs/private/secret.html', htmlPage('Secret', 'Robots keep this out'))
	site.page('/docs/private/from-sitemap.html', htmlPage('Secret 2', 'Robots keep this out too'))
	site.page('/blog/outside.html', htmlPage('Blog', 'Outside the start path'))
	site.routes.set('/docs/moved', { status: 301, headers: { location: `${o}/docs/landing.html` } })
	site.page('/docs/landing.html', htmlPage('Landing', 'The moved page lands here with notes on pruning'))
	site.routes.set('/docs/to-private', {
		status: 302,
		headers: { location: `http://127.0.0.2:${site.port}/docs/a.html` },
	})
	site.routes.set('/docs/report.pdf', {
		body: await samplePdf('Harvest report', ['The harvest was 40 kilograms of beans.']),
		type: 'application/pdf',
	})
	site.routes.set('/docs/style.css', { body: 'body{}', type: 'text/css' })
	site.page('/docs/changing.html', htmlPage('Changing', 'The first version talks about watering'))
	site.page('/docs/vanishing.html', htmlPage('Vanishing', 'This page will be removed'))
	site.page('/docs/deep/level1.html', htmlPage('Level 1', 'One level down', ['level2.html']))
	site.page('/docs/deep/level2.html', htmlPage('Level 2', 'Two levels down about seeds'))
}

describe('web-crawler connector', () => {
	let site: Website
	const crawler = (options: WebCrawlerOptions = {}) =>
		webCrawler({ urlAllowlist: ['127.0.0.1'], delayMs: 0, ...options })
	const harness = (metadata: Record<string, string | number | boolean> = {}, documentLimit?: number) => {
		const sync = syncHarness({ metadata: { startUrl: `${site.origin}/docs/`, ...metadata } })
		if (documentLimit !== undefined) sync.ctx.documentLimit = documentLimit
		return sync
	}
	const paths = (urls: Iterable<string>) => [...urls].map((url) => url.replace(site.origin, '')).sort()
	const requested = () => site.requests.map((request) => request.path)

	beforeEach(async () => {
		site = startWebsite()
		await buildSite(site)
	})
	afterEach(() => site.stop())

	it('crawls the start path: links, sitemap index (gzipped too), robots rules, canonical and duplicate URLs', async () => {
		const sync = harness()
		const events = await sync.run(crawler().sync)
		expect(paths(sync.documents.keys())).toEqual([
			'/docs/',
			'/docs/a.html',
			'/docs/b.html',
			'/docs/changing.html',
			'/docs/deep/level1.html',
			'/docs/deep/level2.html',
			'/docs/gzipped-orphan.html',
			'/docs/landing.html',
			'/docs/orphan.html',
			'/docs/report.pdf',
			'/docs/vanishing.html',
		])
		// robots.txt's group for our agent applies, not `*` (which disallows everything).
		expect(requested().some((path) => path.startsWith('/docs/private/'))).toBe(false)
		expect(requested().some((path) => path.startsWith('/blog/'))).toBe(false)
		expect(requested()).not.toContain('/docs/style.css')
		// The canonical link and the duplicate text under a second URL made no second document.
		expect(requested()).toContain('/docs/alias.html')
		expect(requested()).toContain('/docs/b.html?utm_source=feed')
		expect(sync.documents.get(`${site.origin}/docs/a.html`)!.content).toContain('Tomatoes need six hours of sun')
		expect(sync.documents.get(`${site.origin}/docs/a.html`)!.title).toBe('Tomatoes')
		// Pages go through the reader view: the navigation list is not part of the text.
		expect(sync.documents.get(`${site.origin}/docs/a.html`)!.content).not.toContain('<')
		// The linked PDF goes to file ingestion with the bytes the crawler fetched (one request, its user agent).
		const report = sync.documents.get(`${site.origin}/docs/report.pdf`)!
		expect(report.content).toBeUndefined()
		expect(report.file).toMatchObject({ name: 'report.pdf', mimeType: 'application/pdf' })
		expect(Buffer.from(report.file!.bytes.subarray(0, 5)).toString()).toBe('%PDF-')
		expect(site.requests.every((request) => request.userAgent?.startsWith('memory-service-crawler/'))).toBe(true)
		// A redirect off the site is refused before it is followed.
		const refused = eventsOf(events, 'failure').find((event) => event.externalId === `${site.origin}/docs/to-private`)
		expect(refused?.error).toContain(`redirects to http://127.0.0.2:${site.port}/docs/a.html, which is not followed`)
		expect(requested()).toContain('/docs/moved')
	})

	it('recrawls with validators: unchanged pages cost a 304, a changed page is updated, a gone page deleted', async () => {
		const sync = harness()
		await sync.run(crawler().sync)
		const firstVersion = sync.documents.get(`${site.origin}/docs/changing.html`)!.version
		site.page('/docs/changing.html', htmlPage('Changing', 'The second version talks about frost'))
		site.routes.delete('/docs/vanishing.html')
		site.requests.length = 0
		const events = await sync.run(crawler().sync)
		const a = site.requests.find((request) => request.path === '/docs/a.html')
		expect(a?.ifNoneMatch).toBeTruthy()
		expect(a?.status).toBe(304)
		expect(eventsOf(events, 'unchanged').map((event) => event.externalId)).toContain(`${site.origin}/docs/a.html`)
		expect(eventsOf(events, 'upsert').map((event) => paths([event.document.externalId])[0])).toEqual([
			'/docs/changing.html',
		])
		expect(sync.documents.get(`${site.origin}/docs/changing.html`)!.version).not.toBe(firstVersion)
		expect(sync.documents.get(`${site.origin}/docs/changing.html`)!.content).toContain('frost')
		expect(eventsOf(events, 'delete').map((event) => event.externalId)).toEqual([`${site.origin}/docs/vanishing.html`])
		expect(sync.documents.has(`${site.origin}/docs/vanishing.html`)).toBe(false)
		// Links of a page answered 304 are still followed: the pages under it stay.
		expect(sync.documents.has(`${site.origin}/docs/deep/level2.html`)).toBe(true)
	})

	it('removes a page no longer linked from anywhere at the recrawl', async () => {
		const sync = harness()
		await sync.run(crawler().sync)
		site.page('/docs/deep/level1.html', htmlPage('Level 1', 'One level down, no more links'))
		await sync.run(crawler().sync)
		expect(sync.documents.has(`${site.origin}/docs/deep/level2.html`)).toBe(false)
		expect(sync.documents.has(`${site.origin}/docs/deep/level1.html`)).toBe(true)
	})

	it('stops at the page budget (documentLimit)', async () => {
		const sync = harness({}, 3)
		await sync.run(crawler().sync)
		expect(sync.documents.size).toBe(3)
		const pages = site.requests.filter((request) => request.path.startsWith('/docs/'))
		expect(pages.length).toBeLessThanOrEqual(6)
	})

	it('honours depth and include/exclude path patterns from the metadata', async () => {
		const shallow = harness({ depth: 0 })
		await shallow.run(crawler().sync)
		expect(paths(shallow.documents.keys())).toEqual(['/docs/'])

		site.requests.length = 0
		const patterned = harness({ include: '/docs/*.html', exclude: '/docs/deep/**,/docs/b.html' })
		await patterned.run(crawler().sync)
		const imported = paths(patterned.documents.keys())
		expect(imported).toContain('/docs/a.html')
		expect(imported).not.toContain('/docs/')
		expect(imported).not.toContain('/docs/report.pdf')
		expect(requested().some((path) => path.startsWith('/docs/deep/') || path === '/docs/b.html')).toBe(false)
	})

	it('keeps one request at a time and honours the Crawl-delay for its agent', async () => {
		site.stop()
		site = startWebsite()
		await buildSite(site, 'Crawl-delay: 0.15')
		site.latencyMs = 20
		const sync = harness({ depth: 1 })
		await sync.run(crawler().sync)
		expect(site.requests.length).toBeGreaterThan(5)
		expect(site.requests.every((request) => request.inFlight === 0)).toBe(true)
		// Crawl-delay applies between fetches (a redirect's next hop belongs to the same fetch).
		const gaps = site.requests
			.map((request, index) => ({ request, previous: site.requests[index - 1] }))
			.filter(({ previous }) => previous !== undefined && (previous.status < 300 || previous.status >= 400))
			.map(({ request, previous }) => request.at - previous!.at)
		expect(gaps.length).toBeGreaterThan(5)
		for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(140)
	})

	it('crawls nothing and deletes nothing while robots.txt answers a server error', async () => {
		const sync = harness()
		await sync.run(crawler().sync)
		const held = sync.documents.size
		site.routes.set('/robots.txt', { status: 503, body: 'down' })
		site.requests.length = 0
		const events = await sync.run(crawler().sync)
		expect(requested()).toEqual(['/robots.txt'])
		expect(eventsOf(events, 'present')).toHaveLength(0)
		expect(eventsOf(events, 'failure')[0]?.error).toContain('robots.txt could not be read')
		expect(sync.documents.size).toBe(held)
	})

	it('crawls everything when robots.txt is missing', async () => {
		site.routes.delete('/robots.txt')
		const sync = harness({ depth: 1 })
		await sync.run(crawler().sync)
		expect(requested()).toContain('/sitemap.xml')
		expect(sync.documents.has(`${site.origin}/docs/private/secret.html`)).toBe(true)
	})

	it('ends the crawl without deleting when the host stops answering', async () => {
		const sync = harness()
		await sync.run(crawler().sync)
		const held = sync.documents.size
		for (const path of [
			'/docs/a.html',
			'/docs/b.html',
			'/docs/alias.html',
			'/docs/orphan.html',
			'/docs/changing.html',
		]) {
			site.routes.set(path, { status: 503, body: 'overloaded' })
		}
		site.routes.set('/docs/gzipped-orphan.html', { status: 503, body: 'overloaded' })
		site.routes.set('/docs/landing.html', { status: 503, body: 'overloaded' })
		const events = await sync.run(crawler().sync)
		expect(eventsOf(events, 'failure').some((event) => event.error.includes('stopped answering'))).toBe(true)
		expect(eventsOf(events, 'present')).toHaveLength(0)
		expect(sync.documents.size).toBe(held)
	})

	it('records a page it cannot fetch as a failure and goes on', async () => {
		site.routes.set('/docs/b.html', { status: 500, body: 'broken' })
		const sync = harness()
		const events = await sync.run(crawler().sync)
		expect(eventsOf(events, 'failure').map((event) => event.externalId)).toContain(`${site.origin}/docs/b.html`)
		expect(sync.documents.has(`${site.origin}/docs/a.html`)).toBe(true)
	})

	it('refuses the whole site when the allow-list does not cover its private address', async () => {
		const sync = harness()
		const events = await sync.run(webCrawler({ delayMs: 0 }).sync)
		expect(site.requests).toHaveLength(0)
		expect(sync.documents.size).toBe(0)
		expect(eventsOf(events, 'failure').some((event) => event.error.includes('127.0.0.1 is a loopback address'))).toBe(
			true,
		)
	})

	it('checks the start URL before a connection is created and never recrawls more often than weekly', () => {
		const connector = crawler()
		expect(() => connector.validateMetadata!({})).toThrow('metadata.startUrl is required')
		expect(() => connector.validateMetadata!({ startUrl: 'not a url' })).toThrow('is not a valid URL')
		expect(() => connector.validateMetadata!({ startUrl: 'ftp://example.com/' })).toThrow('http or https')
		expect(() => connector.validateMetadata!({ startUrl: 'https://example.com/', depth: -1 })).toThrow('metadata.depth')
		expect(() => connector.validateMetadata!({ startUrl: 'https://example.com/', include: 'docs' })).toThrow(
			'must start with /',
		)
		expect(() => connector.validateMetadata!({ startUrl: 'https://example.com/docs/' })).not.toThrow()
		expect(connector.auth).toEqual({ type: 'none' })
		expect(connector.schedule).toEqual({ everyHours: 168 })
		expect(crawler({ recrawlEveryHours: 24 }).schedule).toEqual({ everyHours: 168 })
		expect(crawler({ recrawlEveryHours: 720 }).schedule).toEqual({ everyHours: 720 })
	})
})
