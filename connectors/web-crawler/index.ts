import {
	defineConnector,
	PLUGIN_API_VERSION,
	parseAllowList,
	type SyncContext,
	type SyncEvent,
} from '../../core/index.ts'
import { crawl } from './crawl.ts'
import { type FetchOutcome, PoliteFetcher } from './fetcher.ts'
import { crawlSettingsOf, DEFAULT_USER_AGENT, MIN_RECRAWL_HOURS, type WebCrawlerOptions } from './options.ts'
import { loadRobots, type RobotsRules } from './robots.ts'
import { CrawlScope } from './scope.ts'
import { sitemapUrls } from './sitemap.ts'
import { type CrawlCursor, heldCursor, pagesOf } from './state.ts'

export type { CrawlSettings, WebCrawlerOptions } from './options.ts'

const MiB = 1024 * 1024
const HOUR = 3_600_000

/**
 * A website from a start URL: the pages of its site under the start path, as robots.txt allows, found through
 * links and sitemaps, recrawled weekly (or less often) and on demand.
 */
export function webCrawler(options: WebCrawlerOptions = {}) {
	const allow = parseAllowList(options.urlAllowlist ?? [])
	const userAgent = options.userAgent ?? DEFAULT_USER_AGENT
	// robots.txt groups name the product token: `memory-service-crawler` of `memory-service-crawler/0.1 (...)`.
	const agent = userAgent.split(/[/\s]/)[0]!
	return defineConnector<CrawlCursor, Record<string, unknown>>({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: 'web-crawler',
		provider: 'web-crawler',
		displayName: 'Web crawler',
		auth: { type: 'none' },
		schedule: { everyHours: Math.max(MIN_RECRAWL_HOURS, options.recrawlEveryHours ?? MIN_RECRAWL_HOURS) },
		metadataFields: [{ key: 'startUrl', label: 'Start URL', secret: false }],
		validateMetadata(metadata) {
			crawlSettingsOf(metadata)
		},
		async *sync(ctx, cursor): AsyncGenerator<SyncEvent<CrawlCursor>> {
			const settings = crawlSettingsOf(ctx.metadata)
			const early = tooEarly(ctx.trigger, cursor, options)
			if (early) {
				// Nothing is read, nothing deleted: the pages stay as the last crawl left them.
				ctx.logger.info('web crawl skipped', { connectionId: ctx.connectionId, reason: early })
				return
			}
			const fetcher = new PoliteFetcher({
				allow,
				userAgent,
				delayMs: options.delayMs ?? 1000,
				maxBytes: options.maxPageBytes ?? 10 * MiB,
				timeoutMs: options.timeoutMs ?? 15_000,
				signal: ctx.signal,
				maxWaitMs: options.maxCrawlDelayMs ?? 120_000,
				...(options.resolve ? { resolve: options.resolve } : {}),
				...(ctx.turns ? { turns: ctx.turns } : {}),
			})
			const firstRobots = await loadRobots(settings.startUrl.origin, fetcher, agent)
			if ('unreadable' in firstRobots) {
				yield {
					type: 'failure',
					externalId: null,
					error: `${settings.startUrl.origin}/robots.txt could not be read (${firstRobots.unreadable}): nothing is crawled until it can`,
				}
				// Nothing is deleted: what the last crawl held stays.
				yield { type: 'checkpoint', cursor: heldCursor(cursor) }
				return
			}
			let robots: RobotsRules = firstRobots
			if (robots.crawlDelayMs !== null) {
				fetcher.delayMs = Math.max(fetcher.delayMs, Math.min(robots.crawlDelayMs, options.maxCrawlDelayMs ?? 120_000))
			}
			let scope = new CrawlScope(settings)
			// The start page first: a start URL that moved to another host of the same site (www, https) is followed
			// there; one that leads to another site is the run's failure, never a silent empty import.
			fetcher.followRedirect = (to) =>
				scope.onSite(to) || (to.pathname === settings.startUrl.pathname && sameSite(to, settings.startUrl))
			const startKey = settings.startUrl.toString()
			let start: FetchOutcome | undefined
			if (robots.allowed(startKey)) {
				start = await fetcher.get(startKey, previousValidators(cursor, startKey))
				if (start.type === 'refused' && start.status !== null && start.status >= 300 && start.status < 400) {
					yield {
						type: 'failure',
						externalId: null,
						error: `the start URL leads to another site (${start.error}); nothing is crawled or deleted until metadata.startUrl names it`,
					}
					yield { type: 'checkpoint', cursor: heldCursor(cursor) }
					return
				}
				const landed = start.type === 'fetched' ? new URL(start.fetched.url) : null
				if (landed && landed.host !== settings.startUrl.host) {
					settings.startUrl = new URL(landed.toString())
					scope = new CrawlScope(settings)
					const moved = await loadRobots(landed.origin, fetcher, agent)
					if ('unreadable' in moved) {
						yield {
							type: 'failure',
							externalId: null,
							error: `${landed.origin}/robots.txt could not be read (${moved.unreadable}): nothing is crawled until it can`,
						}
						yield { type: 'checkpoint', cursor: heldCursor(cursor) }
						return
					}
					robots = moved
					start = undefined
				}
			}
			fetcher.followRedirect = (to) => scope.onSite(to) && robots.allowed(to.toString())
			const onSite = (url: string) => {
				try {
					return new URL(url).host === settings.startUrl.host
				} catch {
					return false
				}
			}
			const entries = robots.sitemaps.length > 0 ? robots.sitemaps : [`${settings.startUrl.origin}/sitemap.xml`]
			const sitemaps = await sitemapUrls(entries, fetcher, onSite)
			for (const error of sitemaps.failures) yield { type: 'failure', externalId: null, error }
			const budget = ctx.documentLimit ?? options.maxPages ?? 10_000
			// Pages only a refused sitemap lists may still exist: nothing missing from this crawl is deleted.
			const complete = sitemaps.failures.length === 0
			yield* crawl(
				{ ctx, settings, scope, fetcher, robots, sitemapPages: sitemaps.pages, budget, complete, start, agent },
				cursor,
			)
		},
	})
}

/**
 * Why a crawl starting now would come too soon after the last one, or null: a scheduled run more than half a week
 * before `recrawlEveryHours` is due (the schedule ticks weekly), or an on-demand one within the minimum interval.
 */
function tooEarly(
	trigger: SyncContext['trigger'],
	cursor: CrawlCursor | null,
	options: WebCrawlerOptions,
): string | null {
	const last = Date.parse(cursor?.crawledAt ?? '')
	if (!Number.isFinite(last)) return null
	const since = Date.now() - last
	const every = Math.max(MIN_RECRAWL_HOURS, options.recrawlEveryHours ?? MIN_RECRAWL_HOURS) * HOUR
	if (trigger === 'schedule' && since < every - (MIN_RECRAWL_HOURS / 2) * HOUR) {
		return `the last crawl ended ${Math.round(since / HOUR)} h ago; recrawled every ${every / HOUR} h`
	}
	const minimum = (options.minImportIntervalMinutes ?? 60) * 60_000
	if (trigger === 'manual' && since < minimum) {
		return `the last crawl ended ${Math.round(since / 60_000)} min ago; on-demand crawls are at least ${minimum / 60_000} min apart`
	}
	return null
}

/** The same site under another host name: `www.` added or dropped (the scheme may change too). */
function sameSite(a: URL, b: URL): boolean {
	const bare = (url: URL) => url.hostname.replace(/^www\./, '')
	return bare(a) === bare(b)
}

/** The validators the last crawl kept for a URL. */
function previousValidators(cursor: CrawlCursor | null, url: string) {
	for (const page of pagesOf(cursor).values()) if (page.url === url) return page
	return {}
}
