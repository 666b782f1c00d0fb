import type { PoliteFetcher } from './fetcher.ts'
import { gunzipLimited, InflateLimitError } from './gunzip.ts'

/** Sitemap files read per crawl (an index and the sitemaps it lists), so a runaway index cannot take over. */
const MAX_SITEMAP_FILES = 50
/** A sitemap file holds at most 50,000 URLs and 50 MB uncompressed (sitemaps.org). */
const MAX_SITEMAP_BYTES = 50 * 1024 * 1024
const MAX_SITEMAP_URLS = 50_000

export interface SitemapResult {
	pages: string[]
	/** Sitemaps refused (too large, corrupt gzip), each naming the file and why. */
	failures: string[]
}

/**
 * Page URLs of the site's sitemaps: `<urlset>` files and the sitemaps `<sitemapindex>` files list, gzipped or not.
 * Only sitemaps `wanted` accepts are read (the site's own). One that cannot be fetched is passed over; one that is
 * too large, inflated or not, is refused and named in `failures`.
 */
export async function sitemapUrls(
	entries: string[],
	fetcher: PoliteFetcher,
	wanted: (url: string) => boolean,
): Promise<SitemapResult> {
	const queue = entries.filter(wanted)
	const read = new Set<string>()
	const pages: string[] = []
	const failures: string[] = []
	while (queue.length > 0 && read.size < MAX_SITEMAP_FILES) {
		const url = queue.shift()!
		if (read.has(url)) continue
		read.add(url)
		const outcome = await fetcher.get(url)
		if (outcome.type !== 'fetched') continue
		let xml: string
		try {
			xml = await textOf(outcome.fetched.body)
		} catch (error) {
			failures.push(
				error instanceof InflateLimitError
					? `SITEMAP_TOO_LARGE: ${url} ${error.message} (limit 50 MiB uncompressed); its pages are not read`
					: `SITEMAP_UNREADABLE: ${url} cannot be inflated (${(error as Error).message}); its pages are not read`,
			)
			continue
		}
		const { root, locs } = readSitemap(xml)
		if (root === 'sitemapindex') queue.push(...locs.filter(wanted))
		else if (root === 'urlset') pages.push(...locs)
	}
	return { pages, failures }
}

async function textOf(body: Uint8Array): Promise<string> {
	if (body.length > MAX_SITEMAP_BYTES) throw new InflateLimitError(MAX_SITEMAP_BYTES)
	// A `.xml.gz` file arrives gzipped as it is stored (not as a content encoding, which the fetch already undid).
	const bytes = body[0] === 0x1f && body[1] === 0x8b ? await gunzipLimited(body, MAX_SITEMAP_BYTES) : body
	return new TextDecoder().decode(bytes)
}

const ROOT = /<(?:[\w.-]+:)?(urlset|sitemapindex)[\s>]/i
const LOC = /<(?:[\w.-]+:)?loc\s*>\s*(?:<!\[CDATA\[)?([^<\]]*?)(?:\]\]>)?\s*<\/(?:[\w.-]+:)?loc\s*>/gi

/**
 * The root element and `<loc>` values of a sitemap, read by pattern rather than through a DOM: the format is flat
 * (sitemaps.org), and a DOM of a 50 MB file would take many times its size in memory.
 */
function readSitemap(xml: string): { root: string | null; locs: string[] } {
	const root = ROOT.exec(xml)?.[1]?.toLowerCase() ?? null
	const locs: string[] = []
	for (const match of xml.matchAll(LOC)) {
		const loc = decodeEntities(match[1]!.trim())
		if (loc) locs.push(loc)
		if (locs.length >= MAX_SITEMAP_URLS) break
	}
	return { root, locs }
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decodeEntities(text: string): string {
	return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (whole, name: string) => {
		if (name[0] !== '#') return NAMED[name.toLowerCase()] ?? whole
		const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
		return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
	})
}
