import { type ExternalDocument, type Fetched, htmlToText, type SyncContext, type SyncEvent } from '../../core/index.ts'
import { decodeHtml, decodeText } from './charset.ts'
import type { FetchOutcome, PoliteFetcher } from './fetcher.ts'
import type { CrawlSettings } from './options.ts'
import { parsePage } from './page.ts'
import type { RobotsRules } from './robots.ts'
import { robotsTagOf } from './robots-tag.ts'
import { type CrawlScope, normalizeUrl } from './scope.ts'
import { type CrawlCursor, cursorOf, lastCrawledAt, type PageState, pagesOf } from './state.ts'

type Event = SyncEvent<CrawlCursor>

/** After this many failures in a row the host is taken as down: the crawl ends without deleting anything. */
const HOST_DOWN_AFTER = 5
/** Links kept per page for following it again when it is unchanged. */
const MAX_LINKS_PER_PAGE = 500
/** URLs queued per page of budget, so endless link spaces (calendars) end. */
const QUEUE_PER_PAGE = 20
/** Fetches per page of budget: pages followed for their links but not imported count too. */
const FETCHES_PER_PAGE = 3
/** Statuses of a site refusing the crawler (a bot wall or login) rather than saying a page is gone. */
const WALLED = new Set([401, 403, 451])
/** A checkpoint at least this often, so a crawl stopped (job expiry, shutdown) resumes with what it learned. */
const CHECKPOINT_EVERY_PAGES = 200
const CHECKPOINT_EVERY_MS = 120_000

const FILE_TYPES = [
	'application/pdf',
	'application/vnd.openxmlformats-officedocument',
	'application/msword',
	'application/vnd.ms-',
]
const FILE_EXTENSIONS = /\.(?:pdf|docx|pptx|xlsx)$/i
/** Pages that are text already: imported as they are. */
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown'])

export interface CrawlRun {
	ctx: SyncContext
	settings: CrawlSettings
	scope: CrawlScope
	fetcher: PoliteFetcher
	robots: RobotsRules
	sitemapPages: string[]
	budget: number
	/** The start page, already fetched (to see where it redirects). */
	start?: FetchOutcome
	/** False when part of the site could not be listed (a refused sitemap): pages not reached are kept. */
	complete: boolean
	/** The crawler's product token, which `X-Robots-Tag` directives may name. */
	agent: string
}

interface Queued {
	url: URL
	depth: number
}

/**
 * One crawl: the start URL and the sitemaps' pages, then the links found, breadth first, until the queue or the
 * page budget ends. Unchanged pages cost a 304; pages gone (404, 410) are deleted, and pages no longer reached
 * are removed through the closing `present` list, unless the host stopped answering.
 */
export async function* crawl(run: CrawlRun, cursor: CrawlCursor | null): AsyncGenerator<Event> {
	const previous = pagesOf(cursor)
	const previousByUrl = new Map([...previous].map(([id, page]) => [page.url, { id, page }]))
	const held = new Map<string, PageState>()
	const hashes = new Set<string>()
	const seen = new Set<string>()
	const queue: Queued[] = []
	const enqueue = (url: URL, depth: number) => {
		const key = url.toString()
		if (seen.has(key) || seen.size >= run.budget * QUEUE_PER_PAGE || !run.scope.fetchable(url)) return
		if (run.settings.depth !== null && depth > run.settings.depth) return
		seen.add(key)
		queue.push({ url, depth })
	}
	enqueue(run.settings.startUrl, 0)
	for (const page of run.sitemapPages) {
		const url = normalizeUrl(page)
		if (url) enqueue(url, 1)
	}
	let failuresInARow = 0
	let walledInARow = 0
	let unread = false
	const tally = { fetches: 0, walled: 0, answered: 0 }
	let lastCheckpoint = { fetches: 0, at: Date.now() }
	const fetchBudget = run.budget * FETCHES_PER_PAGE
	/** Ends the crawl without deleting anything: what the last crawl held stays. */
	function* abandon(error: string): Generator<Event> {
		yield { type: 'failure', externalId: null, error }
		keepAll(held, previous)
		yield { type: 'checkpoint', cursor: cursorOf(held, lastCrawledAt(cursor)) }
	}
	while (queue.length > 0 && held.size < run.budget) {
		if (tally.fetches >= fetchBudget) {
			// The page budget bounds the load on the site too; what was not reached stays.
			unread = true
			break
		}
		if (
			tally.fetches - lastCheckpoint.fetches >= CHECKPOINT_EVERY_PAGES ||
			Date.now() - lastCheckpoint.at >= CHECKPOINT_EVERY_MS
		) {
			lastCheckpoint = { fetches: tally.fetches, at: Date.now() }
			yield { type: 'checkpoint', cursor: cursorOf(merged(held, previous), lastCrawledAt(cursor)) }
		}
		const { url, depth } = queue.shift()!
		const key = url.toString()
		if (!run.robots.allowed(key)) continue
		const before = previousByUrl.get(key)
		const prefetched = tally.fetches === 0 && key === run.settings.startUrl.toString() ? run.start : undefined
		const outcome = prefetched ?? (await run.fetcher.get(key, before?.page ?? {}))
		tally.fetches++
		if (outcome.type === 'refused' && outcome.status !== null && WALLED.has(outcome.status)) {
			tally.walled++
			if (before) held.set(before.id, before.page)
			yield { type: 'failure', externalId: before?.id ?? key, error: outcome.error }
			// The start page refused, or page after page: the site keeps the crawler out, which says nothing of its pages.
			if (depth === 0 || ++walledInARow >= HOST_DOWN_AFTER) {
				yield* abandon(
					`${url.host} refuses the crawler (HTTP ${outcome.status}: a bot wall or a login); nothing is deleted`,
				)
				return
			}
			continue
		}
		walledInARow = 0
		if (outcome.type === 'unavailable') {
			yield { type: 'failure', externalId: before?.id ?? key, error: outcome.error }
			// Kept: a page that could not be read this time is not taken as gone, nor are the pages only it led to.
			unread = true
			if (before) {
				held.set(before.id, before.page)
				for (const link of before.page.links) {
					const next = normalizeUrl(link)
					if (next) enqueue(next, depth + 1)
				}
			}
			if (++failuresInARow >= HOST_DOWN_AFTER) {
				yield* abandon(`${url.host} stopped answering; the crawl ends here`)
				return
			}
			continue
		}
		failuresInARow = 0
		tally.answered++
		if (outcome.type === 'unchanged' && before) {
			held.set(before.id, before.page)
			hashes.add(before.page.version)
			yield { type: 'unchanged', externalId: before.id }
			for (const link of before.page.links) {
				const next = normalizeUrl(link)
				if (next) enqueue(next, depth + 1)
			}
			continue
		}
		if (outcome.type === 'gone') {
			if (before) yield { type: 'delete', externalId: before.id }
			continue
		}
		if (outcome.type === 'refused' || outcome.type === 'unchanged') {
			const error = outcome.type === 'refused' ? outcome.error : 'answered 304 to an unconditional request'
			yield { type: 'failure', externalId: before?.id ?? key, error }
			continue
		}
		try {
			yield* importFetched(run, outcome.fetched, { url, depth, held, hashes, seen, enqueue })
		} catch (error) {
			if (run.ctx.signal.aborted) throw error
			yield { type: 'failure', externalId: key, error: `could not read the page: ${(error as Error).message}` }
		}
	}
	if (tally.walled > tally.answered) {
		yield* abandon(`${run.settings.startUrl.host} refused most requests (HTTP 401, 403 or 451); nothing is deleted`)
		return
	}
	// A page that could not be read, or pages never reached, leave the listing in doubt: nothing is deleted.
	const complete = run.complete && !unread
	if (!complete) keepAll(held, previous)
	yield { type: 'present', externalIds: [...held.keys()], complete }
	yield { type: 'checkpoint', cursor: cursorOf(held, new Date().toISOString()) }
}

interface Found {
	url: URL
	depth: number
	held: Map<string, PageState>
	hashes: Set<string>
	seen: Set<string>
	enqueue(url: URL, depth: number): void
}

async function* importFetched(run: CrawlRun, fetched: Fetched, found: Found): AsyncGenerator<Event> {
	const finalUrl = normalizeUrl(fetched.url) ?? found.url
	// A redirect that left the site or the start path is not followed into the crawl.
	if (!run.scope.onSite(finalUrl) || !run.robots.allowed(finalUrl.toString())) return
	found.seen.add(finalUrl.toString())
	// The header says for any type what a robots meta tag says for HTML.
	const tag = robotsTagOf(fetched.robotsTag, run.agent)
	const type = (fetched.contentType ?? '').split(';')[0]!.trim().toLowerCase()
	if (FILE_TYPES.some((prefix) => type.startsWith(prefix)) || (!type && FILE_EXTENSIONS.test(finalUrl.pathname))) {
		if (!tag.noindex) yield* importFile(run, fetched, finalUrl, found)
		return
	}
	if (TEXT_TYPES.has(type)) {
		if (!tag.noindex) yield* importText(run, fetched, finalUrl, found, type)
		return
	}
	if (type !== 'text/html' && type !== 'application/xhtml+xml') return
	const html = decodeHtml(fetched.body, fetched.contentType)
	const page = await parsePage(html, finalUrl)
	const links = page.nofollow || tag.nofollow ? [] : page.links.filter((link) => run.scope.fetchable(link))
	for (const link of links) found.enqueue(link, found.depth + 1)
	if (page.noindex || tag.noindex || !run.scope.imported(finalUrl)) return
	// A canonical URL of this site names the document; one elsewhere is not trusted.
	const id = (page.canonical && run.scope.onSite(page.canonical) ? page.canonical : finalUrl).toString()
	if (found.held.has(id)) return
	const { text, title } = await htmlToText(html)
	if (!text.trim()) return
	const version = `sha256:${new Bun.CryptoHasher('sha256').update(text).digest('hex')}`
	// The same text under another URL (a print view, a tracking parameter) is one document.
	yield* hold(run, fetched, found, links.slice(0, MAX_LINKS_PER_PAGE).map(String), {
		externalId: id,
		version,
		title,
		content: text,
		url: id,
		metadata: { type: 'webpage', site: run.settings.startUrl.origin },
		sourceType: 'webpage',
	})
}

/** A plain-text or Markdown page, imported as it is (its links, if any, are not followed). */
async function* importText(
	run: CrawlRun,
	fetched: Fetched,
	finalUrl: URL,
	found: Found,
	type: string,
): AsyncGenerator<Event> {
	if (!run.scope.imported(finalUrl)) return
	const id = finalUrl.toString()
	if (found.held.has(id)) return
	const text = decodeText(fetched.body, fetched.contentType)
	if (!text.trim()) return
	const heading = type === 'text/plain' ? null : /^#\s+(.+)$/m.exec(text)?.[1]?.trim()
	const version = `sha256:${new Bun.CryptoHasher('sha256').update(text).digest('hex')}`
	yield* hold(run, fetched, found, [], {
		externalId: id,
		version,
		title: heading || fetched.fileName,
		content: text,
		url: id,
		metadata: { type: type === 'text/plain' ? 'text' : 'markdown', site: run.settings.startUrl.origin },
		sourceType: 'webpage',
	})
}

/** A linked PDF or office file: the bytes the crawler fetched go to file ingestion, not fetched a second time. */
async function* importFile(run: CrawlRun, fetched: Fetched, finalUrl: URL, found: Found): AsyncGenerator<Event> {
	if (!run.scope.imported(finalUrl)) return
	const id = finalUrl.toString()
	if (found.held.has(id)) return
	const version = `sha256:${new Bun.CryptoHasher('sha256').update(fetched.body).digest('hex')}`
	yield* hold(run, fetched, found, [], {
		externalId: id,
		version,
		title: fetched.fileName,
		file: {
			bytes: fetched.body,
			name: fetched.fileName ?? 'file',
			...(fetched.contentType ? { mimeType: fetched.contentType.split(';')[0]!.trim() } : {}),
		},
		url: id,
		metadata: { type: 'file', site: run.settings.startUrl.origin },
		sourceType: 'webpage_file',
	})
}

/**
 * Holds an item (with the validators and links a recrawl uses) and yields it, unless the same content was held under
 * another URL; an item the connection already has in this version is yielded as unchanged.
 */
async function* hold(
	run: CrawlRun,
	fetched: Fetched,
	found: Found,
	links: string[],
	document: ExternalDocument & { version: string },
): AsyncGenerator<Event> {
	const { externalId: id, version } = document
	if (found.hashes.has(version)) return
	found.hashes.add(version)
	found.held.set(id, {
		url: found.url.toString(),
		etag: fetched.etag,
		lastModified: fetched.lastModified,
		version,
		links,
	})
	if (await run.ctx.hasVersion(id, version)) {
		yield { type: 'unchanged', externalId: id }
		return
	}
	yield { type: 'upsert', document }
}

/** The pages held so far and, for the ones not reached yet, what the last crawl knew of them. */
function merged(held: Map<string, PageState>, previous: Map<string, PageState>): Map<string, PageState> {
	const all = new Map(previous)
	for (const [id, page] of held) all.set(id, page)
	return all
}

/** When the crawl cannot finish, every page held before stays held. */
function keepAll(held: Map<string, PageState>, previous: Map<string, PageState>): void {
	for (const [id, page] of previous) if (!held.has(id)) held.set(id, page)
}
