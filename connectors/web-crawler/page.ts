import { normalizeUrl } from './scope.ts'

export interface ParsedPage {
	links: URL[]
	/** The page's own `<link rel="canonical">`, when it names an http(s) URL. */
	canonical: URL | null
	/** `<meta name="robots">` says noindex: followed for links, never imported. */
	noindex: boolean
	/** `<meta name="robots">` says nofollow: imported, its links not followed. */
	nofollow: boolean
}

/** Links, canonical URL and robots directives of an HTML page; relative URLs resolve against `<base>` or the page. */
export async function parsePage(html: string, pageUrl: URL): Promise<ParsedPage> {
	const { parseHTML } = await import('linkedom')
	const { document } = parseHTML(html)
	const baseHref = document.querySelector('base[href]')?.getAttribute('href')
	const base = (baseHref && normalizeUrl(baseHref, pageUrl)) || pageUrl
	const directives = [...document.querySelectorAll('meta[name]')]
		.filter((meta) => /^(robots|memory-service-crawler)$/i.test(meta.getAttribute('name') ?? ''))
		.map((meta) => (meta.getAttribute('content') ?? '').toLowerCase())
		.join(',')
	const canonicalHref = [...document.querySelectorAll('link[rel][href]')]
		.find((link) => (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/).includes('canonical'))
		?.getAttribute('href')
	const links: URL[] = []
	for (const anchor of document.querySelectorAll('a[href], area[href]')) {
		const rel = (anchor.getAttribute('rel') ?? '').toLowerCase()
		if (rel.split(/\s+/).includes('nofollow')) continue
		const url = normalizeUrl(anchor.getAttribute('href') ?? '', base)
		if (url) links.push(url)
	}
	return {
		links,
		canonical: canonicalHref ? normalizeUrl(canonicalHref, base) : null,
		noindex: /\b(noindex|none)\b/.test(directives),
		nofollow: /\b(nofollow|none)\b/.test(directives),
	}
}
