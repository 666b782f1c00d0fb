import type { CursorValue } from '../../core/index.ts'

/** What the last crawl kept of a page, to ask for it conditionally and to follow its links when it is unchanged. */
export interface PageState {
	/** The URL fetched (the document's id may be its canonical URL). */
	url: string
	etag: string | null
	lastModified: string | null
	/** The version imported: a hash of the page's text or the file's bytes. */
	version: string
	/** Links of the page worth following (on the site). */
	links: string[]
}

/** The cursor: the pages held after the last crawl, by document id (one JSON string, since cursors are flat). */
export interface CrawlCursor extends CursorValue {
	pages: string
	crawledAt: string
}

export function pagesOf(cursor: CrawlCursor | null): Map<string, PageState> {
	if (!cursor?.pages) return new Map()
	try {
		return new Map(Object.entries(JSON.parse(cursor.pages) as Record<string, PageState>))
	} catch {
		return new Map()
	}
}

/**
 * The cursor holding `pages`, and when the last crawl finished (`crawledAt`): a checkpoint that does not end a crawl
 * (one mid-way, a failed run) passes on the one before, so the run resumed or retried is not taken for a recent crawl.
 */
export function cursorOf(pages: Map<string, PageState>, crawledAt: string): CrawlCursor {
	return { pages: JSON.stringify(Object.fromEntries(pages)), crawledAt }
}

/** When the crawl before `cursor`'s run finished ('' for none). */
export const lastCrawledAt = (cursor: CrawlCursor | null) => cursor?.crawledAt ?? ''

/** `cursor` as it was: a run that crawled nothing keeps what the last crawl held, and when it finished. */
export const heldCursor = (cursor: CrawlCursor | null) => cursorOf(pagesOf(cursor), lastCrawledAt(cursor))
