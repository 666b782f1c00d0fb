import { gzipSync } from 'node:zlib'
import { type FaultLayer, faultLayer } from './faults.ts'

/**
 * A small website on 127.0.0.1 for the web crawler: pages held in a map that tests change between crawls, ETag
 * revalidation (304), and a log of every request with its time, headers and how many were in flight.
 */
export interface SiteRequest {
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

export interface Website {
	/** The shared fault layer (testkit/emulators/faults.ts). */
	faults: FaultLayer
	origin: string
	port: number
	routes: Map<string, SiteResponse | (() => SiteResponse)>
	requests: SiteRequest[]
	/** Each answer waits this long (to observe overlapping requests). */
	latencyMs: number
	page(path: string, html: string): void
	stop(): void
}

export function startWebsite(): Website {
	const routes = new Map<string, SiteResponse | (() => SiteResponse)>()
	const requests: SiteRequest[] = []
	let inFlight = 0
	const faults = faultLayer('website')
	const site: Website = {
		faults,
		origin: '',
		port: 0,
		routes,
		requests,
		latencyMs: 0,
		page(path, html) {
			routes.set(path, { body: html, type: 'text/html; charset=utf-8' })
		},
		stop() {
			server.stop(true)
		},
	}
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(request) {
			const fault = faults.before(request)
			if (fault) return fault
			const url = new URL(request.url)
			const path = `${url.pathname}${url.search}`
			const entry: SiteRequest = {
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
				const route = routes.get(path) ?? routes.get(url.pathname)
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
		},
	})
	site.port = server.port!
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
