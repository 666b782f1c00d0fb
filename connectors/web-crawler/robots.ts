import robotsParser from 'robots-parser'
import type { PoliteFetcher } from './fetcher.ts'

export interface RobotsRules {
	allowed(url: string): boolean
	/** Crawl-delay for our user agent (or `*`), in milliseconds. */
	crawlDelayMs: number | null
	sitemaps: string[]
}

/** Largest robots.txt read (RFC 9309 asks parsers to read at least 500 KiB). */
const MAX_ROBOTS_CHARS = 512 * 1024

/**
 * The site's robots.txt as RFC 9309 reads its status: rules when it is there, everything allowed when it is
 * missing (4xx), and null when the site cannot say (5xx, network): then nothing may be crawled.
 */
export async function loadRobots(origin: string, fetcher: PoliteFetcher, agent: string): Promise<RobotsRules | null> {
	const url = `${origin}/robots.txt`
	const outcome = await fetcher.get(url)
	if (outcome.type === 'gone' || outcome.type === 'refused') {
		return { allowed: () => true, crawlDelayMs: null, sitemaps: [] }
	}
	if (outcome.type !== 'fetched') return null
	const text = new TextDecoder().decode(outcome.fetched.body).slice(0, MAX_ROBOTS_CHARS)
	const robots = robotsParser(url, text)
	const delay = robots.getCrawlDelay(agent)
	return {
		// The crawl stays on this host; rules apply by path, whether a page is reached over http or https.
		allowed: (target) => {
			const { pathname, search } = new URL(target)
			return robots.isAllowed(`${origin}${pathname}${search}`, agent) ?? false
		},
		crawlDelayMs: typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? delay * 1000 : null,
		sitemaps: robots.getSitemaps(),
	}
}
