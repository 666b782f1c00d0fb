import { beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { Elysia } from 'elysia'
import { type ConsoleBundle, createConsoleBundle } from '../../console/serve/bundle.ts'
import { consoleRoutes } from '../../console/serve/routes.ts'
import { errorHandling } from '../../core/http/errors.ts'
import { createLogger } from '../../core/logger.ts'

const FIRST_LOAD_BUDGET = 250 * 1024
const CONSOLE_DIR = join(import.meta.dir, '../../console')

describe('console bundle', () => {
	let bundle: ConsoleBundle
	let app: { handle(request: Request): Promise<Response> }
	const get = (path: string, headers: Record<string, string> = {}) =>
		app.handle(new Request(`http://localhost${path}`, { headers }))
	beforeAll(() => {
		bundle = createConsoleBundle()
		app = new Elysia().use(errorHandling(createLogger('silent'))).use(consoleRoutes(bundle))
	})

	it('serves the page at /console and /console/ without a key, with a same-origin-only policy', async () => {
		for (const path of ['/console', '/console/']) {
			const response = await get(path)
			expect(response.status).toBe(200)
			expect(response.headers.get('content-type')).toContain('text/html')
			expect(response.headers.get('content-security-policy')).toContain("default-src 'self'")
			expect(await response.text()).toContain('<div id="app">')
		}
	})

	it('references only its own bundled files: nothing is loaded from another origin', async () => {
		const page = await (await get('/console/')).text()
		const references = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!)
		expect(references.length).toBeGreaterThanOrEqual(2)
		for (const reference of references) expect(reference.startsWith('/console/') || reference === 'data:,').toBe(true)
		for (const [, asset] of await bundle.assets()) {
			const text = await asset.body.text()
			expect(text).not.toMatch(/(?:src|href)=["']https?:\/\//)
			expect(text).not.toMatch(/@import\s+(?:url\()?["']?https?:/)
		}
	})

	it('keeps the JavaScript and CSS the page loads first under 250 KB gzipped', async () => {
		const page = await (await get('/console/')).text()
		const files = [...page.matchAll(/(?:src|href)="\/console\/([^"]+)"/g)].map((match) => match[1]!)
		let gzipped = 0
		for (const file of files) {
			const response = await get(`/console/${file}`)
			expect(response.status).toBe(200)
			expect(response.headers.get('cache-control')).toContain('immutable')
			gzipped += Bun.gzipSync(new Uint8Array(await response.arrayBuffer())).length
		}
		expect(files.some((file) => file.endsWith('.js'))).toBe(true)
		expect(gzipped).toBeLessThan(FIRST_LOAD_BUDGET)
		console.log(`console first load: ${(gzipped / 1024).toFixed(1)} KB gzipped in ${files.length} files`)
	})

	it('answers a revalidation with 304 and an unknown file with a JSON 404', async () => {
		const first = await get('/console/')
		const again = await get('/console/', { 'if-none-match': first.headers.get('etag')! })
		expect(again.status).toBe(304)
		const missing = await get('/console/nope.js')
		expect(missing.status).toBe(404)
		expect(await missing.json()).toMatchObject({ error: 'Not found', details: expect.stringContaining('nope.js') })
	})

	it('imports nothing of the server: the console speaks to the service only over HTTP', async () => {
		const sources = new Bun.Glob('**/*.ts').scanSync({ cwd: CONSOLE_DIR })
		let files = 0
		for (const file of sources) {
			// console/serve/ is the server side that serves the bundle; the browser code never imports it.
			if (file.startsWith('serve/')) continue
			files++
			const text = await Bun.file(join(CONSOLE_DIR, file)).text()
			const imports = [...text.matchAll(/from '([^']+)'/g)].map((match) => match[1]!)
			for (const source of imports) expect(`${file}: ${source}`).not.toMatch(/: (\.\.\/)+(core|plugins|server)\//)
		}
		expect(files).toBeGreaterThan(10)
	})

	it('bundles once and serves the same files from memory', async () => {
		expect(await bundle.assets()).toBe(await bundle.assets())
	})
})
