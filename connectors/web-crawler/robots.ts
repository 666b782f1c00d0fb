import robotsParser from 'robots-parser'
import type { PoliteFetcher } from './fetcher.ts'

/** Why a robots.txt could not be read (5xx, network, TLS, a refused address): nothing may be crawled. */
export interface RobotsUnreadable {
	unreadable: string
}

export interface RobotsRules {
	allowed(url: string): boolean
	/** Crawl-delay for our user agent (or `*`), in milliseconds. */
	crawlDelayMs: number | null
	sitemaps: string[]
}

/**
 * The part of a robots.txt read: RFC 9309 §2.5 asks crawlers to parse at least 500 KiB; a larger file is cut there
 * (at the last whole line) and its rules up to that point apply.
 */
export const MAX_ROBOTS_BYTES = 512 * 1024

/**
 * The site's robots.txt as RFC 9309 reads its status: rules when it is there, everything allowed when it is
 * missing (4xx, or more than five redirects: §2.3.1.2), and unreadable when the site cannot say (5xx, network,
 * TLS): then nothing may be crawled (§2.3.1.4).
 */
export async function loadRobots(
	origin: string,
	fetcher: PoliteFetcher,
	agent: string,
): Promise<RobotsRules | RobotsUnreadable> {
	const url = `${origin}/robots.txt`
	const outcome = await fetcher.get(url, {}, MAX_ROBOTS_BYTES)
	if (outcome.type === 'gone' || (outcome.type === 'refused' && allowsAll(outcome))) {
		return { allowed: () => true, crawlDelayMs: null, sitemaps: [] }
	}
	if (outcome.type === 'unchanged') return { unreadable: 'answered 304 to an unconditional request' }
	if (outcome.type !== 'fetched') return { unreadable: outcome.error }
	const body = outcome.fetched.body
	const whole = body.length < MAX_ROBOTS_BYTES ? body : body.subarray(0, body.lastIndexOf(0x0a) + 1)
	const robots = robotsParser(url, new TextDecoder().decode(whole))
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

/** A refusal that says the file is not there for the crawler: an HTTP 4xx, or a redirect chain too long to follow. */
function allowsAll(outcome: { error: string; status: number | null }): boolean {
	if (outcome.status !== null) return outcome.status >= 300 && outcome.status < 500
	return /more than \d+ redirects/.test(outcome.error)
}
