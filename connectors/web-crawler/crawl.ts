import { type ExternalDocument, type Fetched, htmlToText, type SyncContext, type SyncEvent } from '../../core/index.ts'
import type { PoliteFetcher } from './fetcher.ts'
import type { CrawlSettings } from './options.ts'
import { parsePage } from './page.ts'
import type { RobotsRules } from './robots.ts'
import { type CrawlScope, normalizeUrl } from './scope.ts'
import { type CrawlCursor, cursorOf, type PageState, pagesOf } from './state.ts'

type Event = SyncEvent<CrawlCursor>

/** After this many failures in a row the host is taken as down: the crawl ends without deleting anything. */
const HOST_DOWN_AFTER = 5
/** Links kept per page for following it again when it is unchanged. */
const MAX_LINKS_PER_PAGE = 500
/** URLs queued per page of budget, so endless link spaces (calendars) end. */
const QUEUE_PER_PAGE = 20

const FILE_TYPES = [
	'application/pdf',
	'application/vnd.openxmlformats-officedocument',
	'application/msword',
	'application/vnd.ms-',
]
const FILE_EXTENSIONS = /\.(?:pdf|docx|pptx|xlsx)$/i

export interface CrawlRun {
	ctx: SyncContext
	settings: CrawlSettings
	scope: CrawlScope
	fetcher: PoliteFetcher
	robots: RobotsRules
	sitemapPages: string[]
	budget: number
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
	while (queue.length > 0 && held.size < run.budget) {
		const { url, depth } = queue.shift()!
		const key = url.toString()
		if (!run.robots.allowed(key)) continue
		const before = previousByUrl.get(key)
		const outcome = await run.fetcher.get(key, before?.page ?? {})
		if (outcome.type === 'unavailable') {
			yield { type: 'failure', externalId: before?.id ?? key, error: outcome.error }
			// Kept: a page that could not be read this time is not taken as gone.
			if (before) held.set(before.id, before.page)
			if (++failuresInARow >= HOST_DOWN_AFTER) {
				yield { type: 'failure', externalId: null, error: `${url.host} stopped answering; the crawl ends here` }
				keepAll(held, previous)
				yield { type: 'checkpoint', cursor: cursorOf(held) }
				return
			}
			continue
		}
		failuresInARow = 0
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
	yield { type: 'present', externalIds: [...held.keys()], complete: true }
	yield { type: 'checkpoint', cursor: cursorOf(held) }
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
	const type = (fetched.contentType ?? '').split(';')[0]!.trim().toLowerCase()
	if (FILE_TYPES.some((prefix) => type.startsWith(prefix)) || (!type && FILE_EXTENSIONS.test(finalUrl.pathname))) {
		yield* importFile(run, fetched, finalUrl, found)
		return
	}
	if (type !== 'text/html' && type !== 'application/xhtml+xml') return
	const html = new TextDecoder().decode(fetched.body)
	const page = await parsePage(html, finalUrl)
	const links = page.nofollow ? [] : page.links.filter((link) => run.scope.fetchable(link))
	for (const link of links) found.enqueue(link, found.depth + 1)
	if (page.noindex || !run.scope.imported(finalUrl)) return
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

/** A linked PDF or office file: its URL goes to file ingestion, which fetches it under the same SSRF rules. */
async function* importFile(run: CrawlRun, fetched: Fetched, finalUrl: URL, found: Found): AsyncGenerator<Event> {
	if (!run.scope.imported(finalUrl)) return
	const id = finalUrl.toString()
	if (found.held.has(id)) return
	const version = `sha256:${new Bun.CryptoHasher('sha256').update(fetched.body).digest('hex')}`
	yield* hold(run, fetched, found, [], {
		externalId: id,
		version,
		title: fetched.fileName,
		content: id,
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

/** When the crawl cannot finish, every page held before stays held. */
function keepAll(held: Map<string, PageState>, previous: Map<string, PageState>): void {
	for (const [id, page] of previous) if (!held.has(id)) held.set(id, page)
}
