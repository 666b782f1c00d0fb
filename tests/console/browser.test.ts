import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { github } from '../../connectors/github/index.ts'
import { gmail } from '../../connectors/gmail/index.ts'
import { webCrawler } from '../../connectors/web-crawler/index.ts'
import { launchChromium, screenshot } from '../../testkit/browser.ts'
import { htmlPage, startWebsite, type Website } from '../../testkit/emulators/website.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** Each step drives a real browser against a real service on a shared machine: generous, only to catch a hang. */
const STEP_TIMEOUT = 60_000

const ADJECTIVES =
	'red quiet ancient bright heavy narrow frozen golden hollow tiny rusty silver muddy crisp bitter gentle wild hidden broken velvet'.split(
		' ',
	)
const NOUNS =
	'lantern violin harbor tractor glacier orchard compass kettle falcon meadow anchor chimney saddle trumpet canyon pebble ladder cactus helmet quilt walrus pepper rocket thimble volcano bucket feather glove island jacket'.split(
		' ',
	)
const VERBS = 'repairs paints collects sells borrows polishes hides weighs sketches guards'.split(' ')
const PLACES = 'Lisbon Oslo Denver Kyoto Nairobi Quito Hanoi Tunis Perth Bergen Cusco Lagos Riga Leeds Austin'.split(
	' ',
)
const TIMES = ['Monday', 'spring', 'winter', 'evening', 'harvest']

/** Statements different enough that none merges into another (a seeded generator, so every run writes the same). */
function statements(count: number): string[] {
	let seed = 20
	const pick = (list: string[]) => {
		seed = (seed * 1103515245 + 12345) % 2147483648
		return list[Math.floor((seed / 2147483648) * list.length)]!
	}
	return Array.from({ length: count }, (_, i) => {
		const name = pick(NOUNS)
		return `${pick(PLACES)} neighbour ${name[0]!.toUpperCase()}${name.slice(1)}${Math.floor(i / 100)}x${i % 100} ${pick(VERBS)} a ${pick(ADJECTIVES)} ${pick(NOUNS)} and a ${pick(ADJECTIVES)} ${pick(NOUNS)} every ${pick(TIMES)}`
	})
}

describe('developer console in Chromium', () => {
	let t: TestService
	let server: ReturnType<typeof Bun.serve>
	let base: string
	let browser: Browser
	let context: BrowserContext
	let page: Page
	let hiddenDoc: string
	let site: Website

	const signIn = async (target: Page, key: string) => {
		await target.goto(`${base}/console/`)
		await target.fill('#api-key', key)
		await target.click('button[type=submit]')
		await target.waitForSelector('nav[aria-label="Console pages"]')
	}
	/** The key just created under `name`: the page keeps showing the one created before until the answer arrives. */
	const createdKey = async (name: string) => {
		const shown = await page.waitForSelector(`.new-key:has-text('Key "${name}" created.') #new-key`)
		return (await shown.textContent())!.trim()
	}
	const open = async (route: string) => {
		await page.goto(`${base}/console/#/${route}`)
		await page.waitForSelector('main h1')
	}

	beforeAll(async () => {
		site = startWebsite()
		site.page('/guide/', htmlPage('Orchard guide', 'The orchard guide covers pear trees and their pruning'))
		t = await startTestService('pglite', {
			env: { MEMORY_KEY_CACHE_SECONDS: '0', MEMORY_URL_ALLOWLIST: '127.0.0.1' },
			// The console offers exactly the registered connectors: Gmail and GitHub beside the crawler.
			plugins: [webCrawler({ urlAllowlist: ['127.0.0.1'], delayMs: 0 }), github(), gmail()],
		})
		server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => t.service.app!.handle(request) })
		base = `http://127.0.0.1:${server.port}`
		hiddenDoc = (
			await t.json('POST', '/v3/documents', {
				content: 'The vault combination is written on the back of the lighthouse painting.',
				containerTag: 'hidden_tag',
			})
		).body.id
		// The first request bundles the console; do it before the browser's first page load.
		expect((await fetch(`${base}/console/`)).status).toBe(200)
		browser = await launchChromium()
		context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
		page = await context.newPage()
	}, 180_000)
	afterAll(async () => {
		await browser?.close()
		server?.stop(true)
		await t?.stop()
		site?.stop()
	})

	describe('sign-in', () => {
		it(
			'shows a clear error for a wrong key and stays signed out',
			async () => {
				await page.goto(`${base}/console/`)
				await page.fill('#api-key', 'sm_thisIsNotAKeyOfThisService0000000000000')
				await page.click('button[type=submit]')
				const error = await page.waitForSelector('[role=alert]')
				expect(await error.textContent()).toContain('Invalid, expired or revoked API key')
				expect(await page.$('nav[aria-label="Console pages"]')).toBeNull()
				await screenshot(page, 'sign-in-error')
			},
			STEP_TIMEOUT,
		)

		it(
			'signs in with a key and shows the overview',
			async () => {
				await signIn(page, t.key)
				await page.waitForSelector('.stat')
				expect(await page.textContent('main')).toContain('Processing backlog')
				expect(await page.evaluate<string>("sessionStorage.getItem('memory-console:key')")).toBe(t.key)
				await screenshot(page, 'overview')
			},
			STEP_TIMEOUT,
		)

		it(
			'moves through the pages with the keyboard',
			async () => {
				await page.goto(`${base}/console/#/`)
				await page.waitForSelector('nav')
				await page.keyboard.press('Tab')
				expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Skip to content')
				for (
					let i = 0;
					i < 10 && (await page.evaluate<string>('document.activeElement?.textContent')) !== 'Documents';
					i++
				) {
					await page.keyboard.press('Tab')
				}
				await page.keyboard.press('Enter')
				await page.waitForSelector('#documents-title')
				expect(page.url()).toContain('#/documents')
			},
			STEP_TIMEOUT,
		)
	})

	describe('documents', () => {
		it(
			'adds a document and watches it reach done, with its stage timeline and chunks',
			async () => {
				await open('documents')
				await page.fill('#add-content', 'Marie keeps the spare bicycle pump in the garden shed behind the apple tree.')
				await page.fill('#add-tag', 'browser_tag')
				await page.click('form.add-document button[type=submit]')
				const link = await page.waitForSelector('form.add-document [role=status] a')
				await screenshot(page, 'documents')
				await link.click()
				await page.waitForSelector('.badge.status-done', { timeout: 30_000 })
				await page.waitForSelector('.timeline .stage-ok')
				const stages = await page.$$eval('.timeline li strong', (items) => items.map((item) => item.textContent))
				expect(stages).toEqual(['extracting', 'chunking', 'embedding', 'indexing'])
				expect(await page.textContent('.chunks')).toContain('bicycle pump')
				await page.waitForSelector('p.summary')
				expect(await page.textContent('p.summary')).toBe(
					'Marie keeps the spare bicycle pump in the garden shed behind the apple tree.',
				)
				await screenshot(page, 'document-detail')
			},
			STEP_TIMEOUT,
		)

		it(
			"shows the API's own error when a form is refused",
			async () => {
				await open('documents')
				await page.fill('#add-content', 'Tagged wrongly.')
				await page.fill('#add-tag', 'has spaces in it')
				await page.click('form.add-document button[type=submit]')
				const error = await page.waitForSelector('form.add-document [role=alert]')
				expect(await error.textContent()).toContain('containerTag')
			},
			STEP_TIMEOUT,
		)
	})

	describe('playground', () => {
		it(
			'searches and shows the timing and the same request as curl and client code',
			async () => {
				await open('playground')
				await page.selectOption('#pg-mode', 'v3')
				await page.fill('#pg-q', 'where is the bicycle pump')
				await page.fill('#pg-tag', 'browser_tag')
				await page.click('form.playground button[type=submit]')
				const timing = await page.waitForSelector('[data-testid=timing]')
				expect(await timing.textContent()).toMatch(/1 result in \d+ ms \(server [\d.]+ ms\)/)
				expect(await page.textContent('pre.result')).toContain('garden shed')
				const snippets = await page.$$eval('.snippets pre', (blocks) => blocks.map((block) => block.textContent ?? ''))
				expect(snippets[0]).toContain(`${base}/v3/search`)
				expect(snippets[0]).toContain('"containerTag":"browser_tag"')
				expect(snippets[1]).toContain('client.search.documents')
				await screenshot(page, 'playground', { docs: true })
			},
			STEP_TIMEOUT,
		)
	})

	describe('memory graph', () => {
		it('draws 2,000 memories and their documents, pans, zooms and inspects a node', async () => {
			const all = statements(2000)
			for (let batch = 0; batch < 20; batch++) {
				const memories = all.slice(batch * 100, batch * 100 + 100).map((content) => ({ content }))
				const written = await t.json('POST', '/v4/memories', { containerTag: 'graph_tag', memories })
				expect(written.status).toBe(201)
			}
			await open('graph/graph_tag')
			const canvas = await page.waitForSelector('canvas.graph', { timeout: 30_000 })
			const nodes = Number(await canvas.getAttribute('data-nodes'))
			expect(nodes).toBeGreaterThanOrEqual(2000)
			// The layout settles (generous bound: it only proves the page does not hang).
			await page.waitForSelector('canvas.graph[data-settled]', { timeout: 60_000 })
			console.log(`graph of ${nodes} nodes laid out in ${await canvas.getAttribute('data-layout-ms')} ms`)
			await canvas.focus()
			for (const key of ['+', '-', 'ArrowLeft', 'ArrowRight', 'Enter']) await page.keyboard.press(key)
			await page.waitForSelector('.inspected')
			expect(await page.textContent('.inspected h2')).toMatch(/Memory|Document/)
			await screenshot(page, 'memory-graph', { docs: true })
		}, 300_000)

		it(
			'shows version chains: an updated memory is linked to its older version',
			async () => {
				await t.json('POST', '/v4/memories', {
					containerTag: 'chain_tag',
					memories: [{ content: 'Ada lives in Lisbon' }],
				})
				const updated = await t.json('PATCH', '/v4/memories', {
					containerTag: 'chain_tag',
					content: 'Ada lives in Lisbon',
					newContent: 'Ada lives in Porto',
				})
				expect(updated.status).toBe(200)
				await open('graph/chain_tag')
				// The graph of the test before stays drawn (and settled) until this container's answer arrives.
				await page.waitForSelector('main :text-matches("(^|[^0-9])2 memories")', { timeout: 30_000 })
				await page.waitForSelector('canvas.graph[data-settled]', { timeout: 30_000 })
				const legend = await page.textContent('main')
				expect(legend).toMatch(/\d+ documents, 2 memories, \d+ edges/)
				expect(await page.getAttribute('canvas.graph', 'data-edges')).not.toBe('0')
			},
			STEP_TIMEOUT,
		)
	})

	describe('pages', () => {
		it(
			'renders container tags, usage, settings and MCP setup, and at phone width',
			async () => {
				await open('container-tags/browser_tag')
				await page.waitForSelector('#entity-context')
				expect(await page.textContent('table')).toContain('browser_tag')
				await screenshot(page, 'container-tags')
				await open('usage')
				await page.waitForSelector('.chart canvas')
				await screenshot(page, 'usage')
				await open('mcp')
				expect(await page.textContent('main')).toContain(`${base}/mcp`)
				await screenshot(page, 'mcp')
				const phone = await browser.newContext({ viewport: { width: 390, height: 844 } })
				const small = await phone.newPage()
				await signIn(small, t.key)
				await small.goto(`${base}/console/#/documents`)
				await small.waitForSelector('#documents-title')
				const overflow = await small.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')
				expect(overflow).toBeLessThanOrEqual(0)
				await screenshot(small, 'documents-phone')
				await phone.close()
			},
			STEP_TIMEOUT,
		)

		it(
			'saves a custom OAuth app and never shows its secret again',
			async () => {
				await open('settings')
				const secret = 'ghs_browserTestSecretValue9876'
				await page.fill('#github-client-id', 'Iv1.browser')
				await page.fill('#github-client-secret', secret)
				await page.click('form.provider:has(#github-client-id) button[type=submit]')
				await page.waitForSelector('form.provider:has(#github-client-id) [role=status]')
				// The saved secret's masked form comes with the settings read again after "Saved.".
				await page.locator('form.provider:has(#github-client-id) code', { hasText: '****9876' }).waitFor()
				expect(await page.inputValue('#github-client-secret')).toBe('')
				expect(await page.content()).not.toContain(secret)
				expect(await page.textContent('form.provider:has(#github-client-id)')).toContain('****9876')
				await page.reload()
				await page.waitForSelector('#github-client-secret')
				expect(await page.content()).not.toContain(secret)
				await screenshot(page, 'settings')
			},
			STEP_TIMEOUT,
		)
	})

	describe('connections', () => {
		it(
			'connects the web crawler, shows its status and sync runs, and syncs again on demand',
			async () => {
				await open('connections')
				await page.waitForSelector('#connect-provider')
				const offered = await page.$$eval('#connect-provider option', (options) =>
					options.map((option) => (option as { value: string }).value),
				)
				expect(offered.sort()).toEqual(['github', 'gmail', 'web-crawler'])
				await page.selectOption('#connect-provider', 'web-crawler')
				await page.fill('#connect-tag', 'crawl_tag')
				await page.fill('#connect-startUrl', `${site.origin}/guide/`)
				await page.click('form[aria-labelledby=connect-title] button[type=submit]')
				const row = await page.waitForSelector('tr:has-text("web-crawler")')
				expect(await row.textContent()).toContain('crawl_tag')
				await screenshot(page, 'connections')
				await (await row.$('a'))!.click()
				await page.waitForSelector('#connection-title')
				await page.waitForSelector('table tbody tr:has-text("completed")', { timeout: 60_000 })
				await page.click('button:has-text("Sync now")')
				expect(await page.$('[role=alert]')).toBeNull()
				await screenshot(page, 'connection-detail')
			},
			STEP_TIMEOUT,
		)
	})

	describe('feedback', () => {
		it(
			'lists the reports sent through v5 POST /feedback, with their details',
			async () => {
				const sent = await t.json('POST', '/feedback', {
					type: 'bug',
					title: 'Search misses the heater note',
					description: 'Searching "thermostat" finds nothing.',
					endpoint: '/ns/farm/search',
				})
				expect(sent.status).toBe(202)
				await open('feedback')
				const card = await page.waitForSelector(`[data-feedback-id="${sent.body.id}"]`)
				const text = await card.textContent()
				expect(text).toContain('Search misses the heater note')
				expect(text).toContain('/ns/farm/search')
				await screenshot(page, 'feedback')
			},
			STEP_TIMEOUT,
		)
	})

	describe('API keys', () => {
		it(
			'creates a key, uses it, revokes it and sees it refused',
			async () => {
				await open('keys')
				await page.fill('#key-name', 'browser key')
				await page.click('form[aria-labelledby=create-key-title] button[type=submit]')
				const key = await createdKey('browser key')
				expect(key).toMatch(/^sm_/)
				await screenshot(page, 'keys')
				expect((await t.json('POST', '/v3/documents/list', {}, key)).status).toBe(200)

				const other = await browser.newContext()
				const second = await other.newPage()
				await signIn(second, key)
				await second.goto(`${base}/console/#/documents`)
				await second.waitForSelector('#documents-title')

				page.once('dialog', (dialog) => dialog.accept())
				await page.click('tr:has-text("browser key") button:has-text("Revoke")')
				await page.waitForSelector('tr:has-text("browser key")', { state: 'detached' })
				expect((await t.json('POST', '/v3/documents/list', {}, key)).status).toBe(401)

				await second.click('button:has-text("Refresh")')
				const notice = await second.waitForSelector('[role=alert]')
				expect(await notice.textContent()).toContain('Invalid, expired or revoked API key')
				expect(await second.$('nav[aria-label="Console pages"]')).toBeNull()
				await other.close()
			},
			STEP_TIMEOUT,
		)

		it(
			'a key restricted to one container tag cannot see another container',
			async () => {
				await open('keys')
				await page.fill('#key-name', 'restricted browser key')
				await page.fill('#key-tags', 'browser_tag')
				await page.click('form[aria-labelledby=create-key-title] button[type=submit]')
				const key = await createdKey('restricted browser key')
				expect(await page.textContent('tr:has-text("restricted browser key")')).toContain('browser_tag')

				const other = await browser.newContext()
				const restricted = await other.newPage()
				await signIn(restricted, key)
				expect(await restricted.textContent('nav')).not.toContain('API keys')
				expect(await restricted.textContent('nav')).not.toContain('Feedback')
				await restricted.goto(`${base}/console/#/documents`)
				await restricted.waitForSelector('table tbody tr')
				const tags = await restricted.$$eval('table tbody tr td:nth-child(4)', (cells) =>
					cells.map((c) => c.textContent),
				)
				expect(tags.length).toBeGreaterThan(0)
				expect(new Set(tags)).toEqual(new Set(['browser_tag']))
				await restricted.goto(`${base}/console/#/documents/${hiddenDoc}`)
				const error = await restricted.waitForSelector('[role=alert]')
				expect(await error.textContent()).toContain('Document not found')
				await restricted.goto(`${base}/console/#/container-tags`)
				await restricted.waitForSelector('table')
				expect(await restricted.textContent('table')).not.toContain('hidden_tag')
				await screenshot(restricted, 'restricted-key')
				await other.close()
			},
			STEP_TIMEOUT,
		)
	})
})
