import type { Resolver } from '../../core/index.ts'

/** How the service runs the crawler (set once, from the environment). */
export interface WebCrawlerOptions {
	/** Hosts and ranges that may be fetched although not public: MEMORY_URL_ALLOWLIST's entries. */
	urlAllowlist?: string[]
	/** Sent with every request; its product token (before the `/`) is the name robots.txt rules address. */
	userAgent?: string
	/** Least time between two requests to the site, in milliseconds. Default 1000. */
	delayMs?: number
	/**
	 * Longest robots.txt Crawl-delay, and longest 429/503 Retry-After, honoured, in milliseconds (a larger delay is
	 * capped; a larger Retry-After gives the page up for this crawl). Default 120000.
	 */
	maxCrawlDelayMs?: number
	/** Largest page or file read, in bytes. Default 10 MiB. */
	maxPageBytes?: number
	/** Time one fetch may take, redirects included. Default 15000. */
	timeoutMs?: number
	/**
	 * Hours between recrawls; never less than a week. Default 168. The schedule ticks weekly; a longer interval skips
	 * the weekly runs that come more than half a week before it is due.
	 */
	recrawlEveryHours?: number
	/** Least time between the end of one crawl and an on-demand one, in minutes. Default 60. */
	minImportIntervalMinutes?: number
	/** Page budget of a connection without a documentLimit. Default 10000. */
	maxPages?: number
	/**
	 * How host names become addresses; the system resolver by default. Every address is still checked against the
	 * SSRF rules and the allow-list (tests name their own hosts with it).
	 */
	resolve?: Resolver
}

export const DEFAULT_USER_AGENT = 'memory-service-crawler/0.1 (+web crawler connector)'
export const MIN_RECRAWL_HOURS = 168

/** What one connection crawls, from its create-time metadata. */
export interface CrawlSettings {
	startUrl: URL
	/** Links followed from the start page; null: no limit but the page budget. */
	depth: number | null
	/** Path patterns (`/docs/**`); when given, only matching pages are imported. */
	include: string[]
	/** Path patterns never fetched. */
	exclude: string[]
}

/** Reads and checks the metadata; throws an Error naming the field on bad input. */
export function crawlSettingsOf(metadata: Record<string, unknown>): CrawlSettings {
	const raw = metadata.startUrl
	if (typeof raw !== 'string' || raw.trim() === '')
		throw new Error('metadata.startUrl is required (the page to start from)')
	let startUrl: URL
	try {
		startUrl = new URL(raw.trim())
	} catch {
		throw new Error(`metadata.startUrl "${raw}" is not a valid URL`)
	}
	if (startUrl.protocol !== 'http:' && startUrl.protocol !== 'https:') {
		throw new Error('metadata.startUrl must be an http or https URL')
	}
	if (startUrl.username || startUrl.password) throw new Error('metadata.startUrl must not carry credentials')
	startUrl.hash = ''
	return {
		startUrl,
		depth: depthOf(metadata.depth),
		include: patternsOf(metadata.include, 'include'),
		exclude: patternsOf(metadata.exclude, 'exclude'),
	}
}

function depthOf(value: unknown): number | null {
	if (value === undefined || value === null || value === '') return null
	const depth = Number(value)
	if (!Number.isInteger(depth) || depth < 0 || depth > 100) {
		throw new Error('metadata.depth must be a whole number from 0 to 100')
	}
	return depth
}

/** Patterns as an array of strings or one comma-separated string. */
function patternsOf(value: unknown, name: string): string[] {
	if (value === undefined || value === null || value === '') return []
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null
	if (!list || list.some((entry) => typeof entry !== 'string')) {
		throw new Error(`metadata.${name} must be path patterns: an array of strings or one comma-separated string`)
	}
	const patterns = (list as string[]).map((entry) => entry.trim()).filter(Boolean)
	for (const pattern of patterns) {
		if (!pattern.startsWith('/') && !pattern.startsWith('*')) {
			throw new Error(`metadata.${name}: "${pattern}" must start with / or * (a path pattern such as /docs/**)`)
		}
	}
	return patterns
}
