import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, screenshot } from '../../testkit/browser.ts'
import { authorizeLink } from '../../testkit/connections.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'
import { githubOnEmulator } from '../../testkit/github-service.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** The v5 picker link opens the console's chooser; what is chosen there becomes the connector's selection. */
describe('v5 picker in the console (Chromium)', () => {
	let t: TestService
	let emulator: GithubEmulator
	let server: ReturnType<typeof Bun.serve>
	let base: string
	let browser: Browser
	let page: Page
	let id: string

	beforeAll(async () => {
		emulator = startGithubEmulator()
		emulator.createRepo('octo/handbook', { 'README.md': '# Handbook\n\nThe team ships on Thursdays.' })
		emulator.createRepo('octo/other', { 'README.md': '# Other\n\nNot chosen.' })
		t = await startTestService('pglite', {
			...githubOnEmulator(emulator),
		})
		server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => t.service.app!.handle(request) })
		base = `http://127.0.0.1:${server.port}`
		const created = await t.json('POST', '/ns/picked/connectors', { provider: 'github' })
		id = created.body.id
		await authorizeLink(t, created.body.authorization.url)
		expect((await fetch(`${base}/console/`)).status).toBe(200)
		browser = await launchChromium()
		page = await (await browser.newContext()).newPage()
		await page.goto(`${base}/console/`)
		await page.fill('#api-key', t.key)
		await page.click('button[type=submit]')
		await page.waitForSelector('nav[aria-label="Console pages"]')
	}, 180_000)
	afterAll(async () => {
		await browser?.close()
		server?.stop(true)
		await t?.stop()
		emulator?.stop()
	})

	it('chooses a repository through the picker link, then returns to returnUrl', async () => {
		const returnUrl = `${base}/console/#/`
		const got = await t.json(
			'GET',
			`/ns/picked/connectors/${id}?include=picker&returnUrl=${encodeURIComponent(returnUrl)}`,
		)
		const link = new URL(got.body.picker.url)
		await page.goto(`${base}${link.pathname}${link.hash}`)
		await page.waitForSelector('#choose-title')
		await page.check('label:has-text("octo/handbook") input')
		await screenshot(page, 'picker')
		await page.click('form.chooser button[type=submit]')
		await page.waitForURL(returnUrl)
		const connector = (await t.json('GET', `/ns/picked/connectors/${id}`)).body
		expect(connector.selection.repos.map((repo: { name: string }) => repo.name)).toEqual(['octo/handbook'])
	}, 60_000)

	it('offers the chooser from the connection page', async () => {
		await page.goto(`${base}/console/#/connections/${id}`)
		await page.click('a:has-text("Choose what to sync")')
		await page.waitForSelector('#choose-title')
		await page.waitForSelector('label:has-text("octo/handbook") input:checked')
		expect(await page.isChecked('label:has-text("octo/other") input')).toBe(false)
	}, 60_000)

	it('keeps a chosen repository that is not on the listed page when the selection is saved', async () => {
		for (let i = 0; i < 100; i++) emulator.createRepo(`octo/filler-${String(i).padStart(3, '0')}`, { 'README.md': '#' })
		emulator.createRepo('zz/far', { 'README.md': '# Far\n\nPast the first page.' })
		const far = await t.json('PATCH', `/ns/picked/connectors/${id}`, { selection: { repos: ['zz/far'] } })
		expect(far.status).toBe(200)
		// A fresh load: the chooser reads the selection as it is now.
		await page.goto(`${base}/console/#/connections/${id}/choose`)
		await page.reload()
		await page.waitForSelector('#choose-title')
		await page.waitForSelector('label:has-text("octo/handbook") input')
		expect(await page.locator('label:has-text("zz/far")').count()).toBe(0)
		await page.check('label:has-text("octo/handbook") input')
		await page.click('form.chooser button[type=submit]')
		await page.waitForSelector('[role=status]')
		const connector = (await t.json('GET', `/ns/picked/connectors/${id}`)).body
		const names = connector.selection.repos.map((repo: { name: string }) => repo.name).sort()
		expect(names).toEqual(['octo/handbook', 'zz/far'])
	}, 90_000)

	it('refuses an expired picker link', async () => {
		await page.goto(`${base}/console/#/connections/${id}/choose/1000`)
		const alert = await page.waitForSelector('[role=alert]')
		expect(await alert.textContent()).toContain('expired')
	}, 60_000)
})
