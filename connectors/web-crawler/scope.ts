import type { CrawlSettings } from './options.ts'

/** Links never fetched: what cannot be a page or a document file. */
const NOT_PAGES =
	/\.(?:css|js|mjs|json|xml|rss|atom|png|jpe?g|gif|webp|svg|ico|bmp|tiff?|avif|woff2?|ttf|otf|eot|mp[34]|m4a|wav|ogg|webm|mov|avi|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|iso|apk|bin)$/i

/**
 * The pages one connection may crawl: the start URL's host (and port), under its path, matching the include
 * patterns when there are any and none of the exclude patterns.
 */
export class CrawlScope {
	private readonly host: string
	private readonly pathPrefix: string
	private readonly exactPath: string
	private readonly include: Bun.Glob[]
	private readonly exclude: Bun.Glob[]

	constructor(settings: CrawlSettings) {
		this.host = settings.startUrl.host
		const path = settings.startUrl.pathname
		const last = path.slice(path.lastIndexOf('/') + 1)
		// `/docs/intro.html` scopes `/docs/`; `/docs` and `/docs/` both scope the `/docs` folder.
		if (path.endsWith('/')) this.pathPrefix = path
		else if (last.includes('.')) this.pathPrefix = path.slice(0, path.lastIndexOf('/') + 1)
		else this.pathPrefix = `${path}/`
		this.exactPath = this.pathPrefix.replace(/\/$/, '') || '/'
		this.include = settings.include.map((pattern) => new Bun.Glob(pattern))
		this.exclude = settings.exclude.map((pattern) => new Bun.Glob(pattern))
	}

	/** Same site and under the start path (the include and exclude patterns aside). */
	onSite(url: URL): boolean {
		if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
		if (url.host !== this.host) return false
		return url.pathname === this.exactPath || url.pathname.startsWith(this.pathPrefix)
	}

	/** Worth fetching: on the site, not excluded, and not an asset. */
	fetchable(url: URL): boolean {
		if (!this.onSite(url) || NOT_PAGES.test(url.pathname)) return false
		return !this.exclude.some((glob) => glob.match(url.pathname))
	}

	/** Imported as a document (pages outside the include patterns are still followed for their links). */
	imported(url: URL): boolean {
		return this.include.length === 0 || this.include.some((glob) => glob.match(url.pathname))
	}
}

/** An absolute http(s) URL without its fragment, or null for anything else (mailto:, javascript:, bad input). */
export function normalizeUrl(href: string, base?: URL | string): URL | null {
	let url: URL
	try {
		url = new URL(href.trim(), base)
	} catch {
		return null
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
	url.hash = ''
	return url
}
