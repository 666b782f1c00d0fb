import { webCrawler } from '../../connectors/web-crawler/index.ts'
import { syncSettled } from '../../testkit/connections.ts'
import { connectorConformance } from '../../testkit/connector-conformance/index.ts'
import { htmlPage, startWebsite, type Website } from '../../testkit/emulators/website.ts'

let site: Website
const items = new Map<string, string>()
const itemPath = (id: string) => `/docs/items/${id}.html`

/** The index page links every item: it is the crawler's listing. */
function publishIndex() {
	site.page('/docs/', htmlPage('Items', 'Every item of the conformance site', [...items.keys()].map(itemPath)))
}

connectorConformance({
	name: 'web-crawler',
	connector: () => webCrawler({ urlAllowlist: ['127.0.0.1'], delayMs: 0, minImportIntervalMinutes: 0 }),
	emulator: {
		start() {
			site = startWebsite()
			site.routes.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', type: 'text/plain' })
			publishIndex()
		},
		stop: () => site.stop(),
		seed(seeded) {
			for (const [id, content] of Object.entries(seeded)) {
				items.set(id, content)
				site.page(itemPath(id), htmlPage(id, content))
			}
			publishIndex()
		},
		remove(ids) {
			for (const id of ids) {
				items.delete(id)
				site.routes.delete(itemPath(id))
			}
			publishIndex()
		},
		http: true,
		// A public website holds no grant that could be revoked.
		revocable: false,
		// The page budget: the crawl stops at documentLimit by itself.
		selfLimited: true,
		// A crawl asks for every page again with its validators (a 304 when unchanged), a resumed one too.
		revalidatesItems: true,
		faults: () => site.faults,
		itemReads: /^\/docs\/items\//,
		listing: /^\/docs\/$/,
	},
	server: () => ({ MEMORY_CONNECTORS: 'web-crawler', MEMORY_URL_ALLOWLIST: '127.0.0.1', WEB_CRAWLER_DELAY_MS: '0' }),
	async connect(t, body, key) {
		const metadata = { startUrl: `${site.origin}/docs/`, include: '/docs/items/**' }
		const created = await t.json('POST', '/v3/connections/web-crawler', { ...body, metadata }, key)
		return (await syncSettled(t, created.body.id, '', key)).id
	},
	externalId: (id) => `${site.origin}${itemPath(id)}`,
	oauth: false,
})
