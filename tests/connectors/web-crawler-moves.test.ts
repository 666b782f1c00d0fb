import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'bun:test'
import https from 'node:https'
import { webCrawler } from '../../connectors/web-crawler/index.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { htmlPage, SITE_TEST_CERT, startWebsite, type Website } from '../../testkit/emulators/website.ts'

/**
 * A site that moved: `site.test` (the apex) redirects to `www.site.test`, or http to https. The names resolve to
 * 127.0.0.1 through the crawler's resolver option (they would not resolve here otherwise), and every address is still
 * checked by the SSRF guard. The emulator serves http and https on two ports, so an http -> https move here also
 * changes the port, where a real one goes from 80 to 443; the crawler compares host names, not ports, to call it the
 * same site.
 */
describe('web-crawler connector: a start URL that moved', () => {
	let site: Website
	const names = new Set(['site.test', 'www.site.test', 'other.test'])
	const crawler = () =>
		webCrawler({
			urlAllowlist: ['127.0.0.1'],
			delayMs: 0,
			resolve: async (host) => (names.has(host) ? ['127.0.0.1'] : []),
		})
	const harness = (startUrl: string) => syncHarness({ metadata: { startUrl } })
	let trusted: unknown
	beforeAll(() => {
		// The https listener's self-signed certificate, trusted for this file only.
		trusted = https.globalAgent.options.ca
		https.globalAgent.options.ca = SITE_TEST_CERT
	})
	afterAll(() => {
		https.globalAgent.options.ca = trusted as string | undefined
	})

	beforeEach(() => {
		site = startWebsite({ https: true })
		const www = site.host('www.site.test')
		www.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', type: 'text/plain' })
		www.set('/docs/', { body: htmlPage('Docs home', 'Welcome to the garden handbook', ['a.html']), type: 'text/html' })
		www.set('/docs/a.html', { body: htmlPage('Tomatoes', 'Tomatoes need six hours of sun'), type: 'text/html' })
		site.host('site.test').set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', type: 'text/plain' })
	})
	afterEach(() => site.stop())

	it('follows the apex moving to www: the pages are crawled and imported on www', async () => {
		const apex = `http://site.test:${site.port}`
		const www = `http://www.site.test:${site.port}`
		site.host('site.test').set('/docs/', { status: 301, headers: { location: `${www}/docs/` } })
		const sync = harness(`${apex}/docs/`)
		const events = await sync.run(crawler().sync)
		expect(eventsOf(events, 'failure')).toEqual([])
		expect([...sync.documents.keys()].sort()).toEqual([`${www}/docs/`, `${www}/docs/a.html`])
		expect(site.requests.some((request) => request.host === 'www.site.test' && request.path === '/robots.txt')).toBe(
			true,
		)
	})

	it('follows http moving to https on www', async () => {
		const secure = `https://www.site.test:${site.httpsPort}`
		site.host('site.test').set('/docs/', { status: 301, headers: { location: `${secure}/docs/` } })
		const sync = harness(`http://site.test:${site.port}/docs/`)
		const events = await sync.run(crawler().sync)
		expect(eventsOf(events, 'failure')).toEqual([])
		expect([...sync.documents.keys()].sort()).toEqual([`${secure}/docs/`, `${secure}/docs/a.html`])
		expect(site.requests.filter((request) => request.scheme === 'https').length).toBeGreaterThan(2)
	})

	it('fails the run with the reason when the start URL moved to another site: nothing fetched there, nothing deleted', async () => {
		const apex = site.host('site.test')
		apex.set('/docs/', { body: htmlPage('Docs home', 'Welcome to the garden handbook', ['a.html']), type: 'text/html' })
		apex.set('/docs/a.html', { body: htmlPage('Tomatoes', 'Tomatoes need six hours of sun'), type: 'text/html' })
		const sync = harness(`http://site.test:${site.port}/docs/`)
		await sync.run(crawler().sync)
		expect(sync.documents.size).toBe(2)
		const elsewhere = `https://other.test:${site.httpsPort}/docs/`
		site.host('site.test').set('/docs/', { status: 301, headers: { location: elsewhere } })
		site.host('other.test').set('/docs/', { body: htmlPage('Other', 'Another site'), type: 'text/html' })
		const events = await sync.run(crawler().sync)
		const failure = eventsOf(events, 'failure').find((event) => event.externalId === null)
		expect(failure?.error).toContain('the start URL leads to another site')
		expect(failure?.error).toContain(elsewhere)
		expect(eventsOf(events, 'present')).toEqual([])
		expect(sync.documents.size).toBe(2)
		expect(site.requests.some((request) => request.host === 'other.test')).toBe(false)
	})
})
