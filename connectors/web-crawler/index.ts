import { defineConnector, PLUGIN_API_VERSION, parseAllowList, type SyncEvent } from '../../core/index.ts'
import { crawl } from './crawl.ts'
import { PoliteFetcher } from './fetcher.ts'
import { crawlSettingsOf, DEFAULT_USER_AGENT, MIN_RECRAWL_HOURS, type WebCrawlerOptions } from './options.ts'
import { loadRobots } from './robots.ts'
import { CrawlScope } from './scope.ts'
import { sitemapUrls } from './sitemap.ts'
import { type CrawlCursor, cursorOf, pagesOf } from './state.ts'

export type { CrawlSettings, WebCrawlerOptions } from './options.ts'

const MiB = 1024 * 1024

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
			const fetcher = new PoliteFetcher({
				allow,
				userAgent,
				delayMs: options.delayMs ?? 1000,
				maxBytes: options.maxPageBytes ?? 10 * MiB,
				timeoutMs: options.timeoutMs ?? 15_000,
				signal: ctx.signal,
			})
			const robots = await loadRobots(settings.startUrl.origin, fetcher, agent)
			if (!robots) {
				yield {
					type: 'failure',
					externalId: null,
					error: `${settings.startUrl.origin}/robots.txt could not be read (server error or no answer): nothing is crawled until it can`,
				}
				// Nothing is deleted: what the last crawl held stays.
				yield { type: 'checkpoint', cursor: cursorOf(pagesOf(cursor)) }
				return
			}
			if (robots.crawlDelayMs !== null) {
				fetcher.delayMs = Math.max(fetcher.delayMs, Math.min(robots.crawlDelayMs, options.maxCrawlDelayMs ?? 30_000))
			}
			const scope = new CrawlScope(settings)
			const onSite = (url: string) => {
				try {
					return new URL(url).host === settings.startUrl.host
				} catch {
					return false
				}
			}
			const entries = robots.sitemaps.length > 0 ? robots.sitemaps : [`${settings.startUrl.origin}/sitemap.xml`]
			const sitemapPages = await sitemapUrls(entries, fetcher, onSite)
			const budget = ctx.documentLimit ?? options.maxPages ?? 10_000
			yield* crawl({ ctx, settings, scope, fetcher, robots, sitemapPages, budget }, cursor)
		},
	})
}
