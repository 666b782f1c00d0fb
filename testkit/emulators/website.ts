import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { type FaultLayer, faultLayer } from './faults.ts'

/**
 * A small website on 127.0.0.1 for the web crawler: pages held in a map that tests change between crawls, ETag
 * revalidation (304), and a log of every request with its time, headers and how many were in flight. It can serve
 * several host names (each with its own pages, chosen by the request's Host) and, on a second port, https with a
 * self-signed certificate for `site.test`, `www.site.test` and `other.test` (testkit/fixtures/tls), so a site moving
 * from its apex to `www`, or from http to https, can be crawled as it answers.
 */
export interface SiteRequest {
	/** The host name asked for (without the port) and the scheme. */
	host: string
	scheme: 'http' | 'https'
	path: string
	userAgent: string | null
	ifNoneMatch: string | null
	status: number
	at: number
	/** Requests being answered when this one arrived (0 when it was alone). */
	inFlight: number
}

export interface SiteResponse {
	status?: number
	body?: string | Uint8Array
	type?: string
	headers?: Record<string, string>
}

type Routes = Map<string, SiteResponse | (() => SiteResponse)>

export interface Website {
	/** The shared fault layer (testkit/emulators/faults.ts). */
	faults: FaultLayer
	origin: string
	port: number
	/** The https listener's port, when started with `{ https: true }`. */
	httpsPort: number | null
	/** Pages of any host name not given its own with `host`. */
	routes: Routes
	/** The pages of one host name (created on first use), on both listeners. */
	host(name: string): Routes
	requests: SiteRequest[]
	/** Each answer waits this long (to observe overlapping requests). */
	latencyMs: number
	page(path: string, html: string): void
	stop(): void
}

/** The certificate the https listener presents; a test trusts it (and nothing else changes) to fetch from it. */
export const SITE_TEST_CERT = readFileSync(new URL('../fixtures/tls/site-test.crt', import.meta.url), 'utf8')
const SITE_TEST_KEY = readFileSync(new URL('../fixtures/tls/site-test.key', import.meta.url), 'utf8')

export function startWebsite(options: { https?: boolean } = {}): Website {
	const routes: Routes = new Map()
	const hosts = new Map<string, Routes>()
	const requests: SiteRequest[] = []
	let inFlight = 0
	const faults = faultLayer('website')
	const site: Website = {
		faults,
		origin: '',
		port: 0,
		httpsPort: null,
		routes,
		host(name) {
			const own = hosts.get(name) ?? new Map()
			hosts.set(name, own)
			return own
		},
		requests,
		latencyMs: 0,
		page(path, html) {
			routes.set(path, { body: html, type: 'text/html; charset=utf-8' })
		},
		stop() {
			server.stop(true)
			secure?.stop(true)
		},
	}
	const handler = (scheme: 'http' | 'https') => async (request: Request) => {
		const fault = await faults.before(request)
		if (fault) return fault
		const url = new URL(request.url)
		const path = `${url.pathname}${url.search}`
		const served = hosts.get(url.hostname) ?? site.routes
		const entry: SiteRequest = {
			host: url.hostname,
			scheme,
			path,
			userAgent: request.headers.get('user-agent'),
			ifNoneMatch: request.headers.get('if-none-match'),
			status: 0,
			at: Date.now(),
			inFlight,
		}
		requests.push(entry)
		inFlight++
		try {
			if (site.latencyMs > 0) await Bun.sleep(site.latencyMs)
			const route = served.get(path) ?? served.get(url.pathname)
			const answer = typeof route === 'function' ? route() : route
			if (!answer) {
				entry.status = 404
				return new Response('not found', { status: 404 })
			}
			const status = answer.status ?? 200
			const headers: Record<string, string> = { ...(answer.headers ?? {}) }
			if (answer.type) headers['content-type'] = answer.type
			if (status === 200 && answer.body !== undefined) {
				const etag = `"${Bun.hash(answer.body).toString(16)}"`
				headers.etag = etag
				if (entry.ifNoneMatch === etag) {
					entry.status = 304
					return new Response(null, { status: 304, headers: { etag } })
				}
			}
			entry.status = status
			return new Response(answer.body ?? null, { status, headers })
		} finally {
			inFlight--
		}
	}
	const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler('http') })
	const secure = options.https
		? Bun.serve({
				hostname: '127.0.0.1',
				port: 0,
				tls: { cert: SITE_TEST_CERT, key: SITE_TEST_KEY },
				fetch: handler('https'),
			})
		: null
	site.port = server.port!
	site.httpsPort = secure?.port ?? null
	site.origin = `http://127.0.0.1:${server.port}`
	return site
}

/** A page with enough text for a reader view, and the given links. */
export function htmlPage(title: string, paragraph: string, links: string[] = [], head = ''): string {
	const body = Array.from(
		{ length: 4 },
		(_, index) => `<p>${paragraph} (part ${index + 1}): ${'details '.repeat(20)}</p>`,
	)
	const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')
	return `<!doctype html><html><head><title>${title}</title>${head}</head><body><main><article><h1>${title}</h1>${body.join('')}</article><nav><ul>${anchors}</ul></nav></main></body></html>`
}

export const sitemapXml = (urls: string[]) =>
	`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
		.map((url) => `<url><loc>${url}</loc><lastmod>2026-11-01</lastmod></url>`)
		.join('')}</urlset>`

export const sitemapIndexXml = (urls: string[]) =>
	`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
		.map((url) => `<sitemap><loc>${url}</loc></sitemap>`)
		.join('')}</sitemapindex>`

export const gzipped = (text: string) => gzipSync(text)

/**
 * A `.xml.gz` of about `size` bytes that inflates about a thousand-fold: a sitemap's opening, then gzip members of
 * 1 MiB of spaces each, concatenated (RFC 1952 §2.2: a gzip file is a series of members; gunzip inflates them all).
 */
export function gzipBomb(size: number): Uint8Array {
	const member = gzipSync(Buffer.alloc(1024 * 1024, 0x20))
	const parts = [gzipSync('<?xml version="1.0" encoding="UTF-8"?><urlset>')]
	for (let total = parts[0]!.length; total < size; total += member.length) parts.push(member)
	return Buffer.concat(parts)
}
