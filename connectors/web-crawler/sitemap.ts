import { gunzipSync } from 'node:zlib'
import type { PoliteFetcher } from './fetcher.ts'

/** Sitemap files read per crawl (an index and the sitemaps it lists), so a runaway index cannot take over. */
const MAX_SITEMAP_FILES = 50
/** A sitemap file holds at most 50,000 URLs and 50 MB (sitemaps.org). */
const MAX_SITEMAP_BYTES = 50 * 1024 * 1024

/**
 * Page URLs of the site's sitemaps: `<urlset>` files and the sitemaps `<sitemapindex>` files list, gzipped or not.
 * Only sitemaps `wanted` accepts are read (the site's own), and a sitemap that cannot be read is passed over.
 */
export async function sitemapUrls(
	entries: string[],
	fetcher: PoliteFetcher,
	wanted: (url: string) => boolean,
): Promise<string[]> {
	const { DOMParser } = await import('linkedom')
	const queue = entries.filter(wanted)
	const read = new Set<string>()
	const pages: string[] = []
	while (queue.length > 0 && read.size < MAX_SITEMAP_FILES) {
		const url = queue.shift()!
		if (read.has(url)) continue
		read.add(url)
		const outcome = await fetcher.get(url)
		if (outcome.type !== 'fetched' || outcome.fetched.body.length > MAX_SITEMAP_BYTES) continue
		const xml = textOf(outcome.fetched.body)
		if (!xml) continue
		const document = new DOMParser().parseFromString(xml, 'text/xml')
		const root = document.documentElement?.tagName?.toLowerCase().replace(/^.*:/, '')
		const locs = [...document.getElementsByTagName('loc')].map((loc) => loc.textContent?.trim() ?? '').filter(Boolean)
		if (root === 'sitemapindex') queue.push(...locs.filter(wanted))
		else if (root === 'urlset') pages.push(...locs)
	}
	return pages
}

function textOf(body: Uint8Array): string | null {
	try {
		// A `.xml.gz` file arrives gzipped as it is stored (not as a content encoding).
		const bytes = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body
		return new TextDecoder().decode(bytes)
	} catch {
		return null
	}
}
