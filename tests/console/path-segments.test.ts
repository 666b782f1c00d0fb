import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Glob } from 'bun'
import type { Browser } from 'playwright-core'
import { apiPath } from '../../console/lib/api-path.ts'
import { launchChromium } from '../../testkit/browser.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const HOSTILE_IDS = ['../container-tags/victimtag', 'a/b', '?deleteDocuments=true', '#x', '%2e%2e%2fkeys', 'a b&c=d']

describe('console API paths', () => {
	it('keeps every interpolated value one segment of the route it names', () => {
		for (const id of HOSTILE_IDS) {
			const url = new URL(apiPath`/v3/documents/${id}/retry`, 'http://console.example')
			expect(url.pathname.split('/').slice(0, 3)).toEqual(['', 'v3', 'documents'])
			expect(url.pathname.endsWith('/retry')).toBe(true)
			expect(url.search + url.hash).toBe('')
			expect(decodeURIComponent(url.pathname.split('/')[3]!)).toBe(id)
		}
		expect(apiPath`/v3/usage?since=${'2026-01-01&limit=1'}`).toBe('/v3/usage?since=2026-01-01%26limit%3D1')
		for (const dots of ['.', '..']) expect(() => apiPath`/v3/documents/${dots}`).toThrow('cannot be a path segment')
	})

	it('is how every page builds a path from a value', async () => {
		const unencoded: string[] = []
		for await (const file of new Glob('console/{pages,components,lib}/*.ts').scan({
			cwd: `${import.meta.dir}/../..`,
		})) {
			const source = await Bun.file(`${import.meta.dir}/../../${file}`).text()
			for (const match of source.matchAll(/\bapi\s*\.(?:get|post|patch|put|delete)(?:<[^>]*>)?\(\s*`/g)) {
				unencoded.push(`${file}: ${source.slice(match.index, match.index + 60)}`)
			}
		}
		expect(unencoded).toEqual([])
	})
})

describe('console document page with a crafted customId, in Chromium', () => {
	let t: TestService
	let server: ReturnType<typeof Bun.serve>
	let base: string
	let browser: Browser
	let crafted: string
	beforeAll(async () => {
		t = await startTestService('pglite', { env: { MEMORY_KEY_CACHE_SECONDS: '0' }, extractor: null })
		server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => t.service.app!.handle(request) })
		base = `http://127.0.0.1:${server.port}`
		const victim = await t.json('POST', '/v3/documents', { content: 'Victim tag document', containerTag: 'victimtag' })
		await t.waitForStatus(victim.body.id)
		const restricted = (await t.json('POST', '/v3/keys', { name: 'a', containerTags: ['tag_a'] })).body.key
		crafted = (
			await t.json(
				'POST',
				'/v3/documents',
				{
					content: 'Routine note, please clean up this duplicate.',
					containerTag: 'tag_a',
					customId: '../container-tags/victimtag',
				},
				restricted,
			)
		).body.id
		await t.waitForStatus(crafted)
		expect((await fetch(`${base}/console/`)).status).toBe(200)
		browser = await launchChromium()
	}, 180_000)
	afterAll(async () => {
		await browser?.close()
		server?.stop(true)
		await t?.stop()
	})

	it("deletes the document shown, never what its customId's path would reach", async () => {
		const page = await (await browser.newContext()).newPage()
		const sent: string[] = []
		page.on('request', (request) => sent.push(`${request.method()} ${new URL(request.url()).pathname}`))
		page.on('dialog', (dialog) => dialog.accept())
		await page.goto(`${base}/console/`)
		await page.fill('#api-key', t.key)
		await page.click('button[type=submit]')
		await page.waitForSelector('nav[aria-label="Console pages"]')
		await page.goto(`${base}/console/#/documents/..%2Fcontainer-tags%2Fvictimtag`)
		await page.waitForSelector('#document-title')
		expect(await page.textContent('main')).toContain('Routine note')
		await page.click('button.danger')
		// Not waitForFunction: its in-page polling evaluates the predicate, which the console's CSP refuses.
		await page.waitForURL((url) => url.hash === '#/documents', { waitUntil: 'commit' })
		expect(sent.filter((line) => line.includes('/v3/container-tags/victimtag'))).toEqual([])
		expect(sent).toContain(`DELETE /v3/documents/${crafted}`)
		const victims = await t.json('POST', '/v3/documents/list', { containerTags: ['victimtag'] })
		expect(victims.body.pagination.totalItems).toBe(1)
		expect((await t.json('GET', `/v3/documents/${crafted}`)).status).toBe(404)
	}, 60_000)
})
