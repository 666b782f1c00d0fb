import { type ExternalDocument, ItemError, type SyncContext, type SyncEvent } from '../../core/index.ts'
import { readBlockTree } from './blocks.ts'
import { isRefused, isUnavailable, messageOf, NotionSession, statusOf } from './client.ts'
import { confirmGone } from './gone.ts'
import type { NotionCursor } from './options.ts'
import { dataSourceOf, documentOf, isRow, isTrashed, listedVersions, malformation, type NotionPage } from './page.ts'
import { withCompleteProperties } from './property-items.ts'
import { plainText } from './rich-text.ts'
import { rowsOf } from './rows.ts'

type Event = SyncEvent<NotionCursor>

export interface SyncOptions {
	apiUrl: string
	requestsPerSecond: number
	reconcileEveryHours: number
	discoverEveryMinutes: number
	refreshEveryHours: number
	maxBlocksPerPage: number
	maxRateLimitWaitSeconds?: number
}

/** Where an unfinished run stopped: the next one goes on from there (with the same plan) rather than from the top. */
interface Resume {
	startedAt: string
	full: boolean
	walk: boolean
	since: string | null
	newest: string | null
	/** The search page being read (`start_cursor`), in the search phase. */
	searchCursor: string | null
	phase: 'search' | 'rows'
	dataSources: { id: string; title: string | null }[]
	/** Index of the data source being read, in the rows phase. */
	rowsFrom: number
}

/** A checkpoint at least every this many pages handled, or this long. */
const CHECKPOINT_EVERY_PAGES = 200
const CHECKPOINT_EVERY_MS = 2 * 60_000
/** A resume older than this starts over (Notion says nothing of how long a search cursor stays valid). */
const RESUME_FOR_MS = 6 * 3_600_000

export interface Run {
	session: NotionSession
	ctx: SyncContext<unknown>
	options: SyncOptions
	/** Pages handled this run (a row is listed by search and by its data source). */
	seen: Set<string>
	dataSources: Map<string, string | null>
	newest: string | null
	/** The oldest stamp of a page that failed: the next incremental run lists from there again. */
	oldestFailed: string | null
	/** The refresh period pages showing other objects' content are versioned with. */
	refreshEpoch: string
	/** The `start_cursor` of the search page being read. */
	searchCursor: string | null
}

/**
 * The pages and databases shared with the integration, newest-edited first.
 * - Every run lists search results edited since the newest stamp seen; every `discoverEveryMinutes` the whole search
 *   listing is walked instead, so a page shared (or indexed) later with an older stamp is found; unchanged pages are
 *   not read.
 * - Every `reconcileEveryHours` a full listing also queries every data source (all rows, past the per-query limit),
 *   and confirms with Notion each imported page it did not list: search is not exhaustive, so a page is deleted only
 *   when Notion says it is in the trash, or answers 404 on two runs in a row.
 * - The trash is searched on every run (without a time cut: nothing documents that trashing moves the stamp).
 * - Every `refreshEveryHours` pages that show other objects' content (synced copies, child page titles, computed
 *   properties, rows) are read again, since that content changes without a new stamp on the page.
 */
export async function* syncNotion(
	ctx: SyncContext<unknown>,
	cursor: NotionCursor | null,
	options: SyncOptions,
): AsyncGenerator<Event> {
	const resume = resumeOf(cursor?.resume)
	const startedAt = resume?.startedAt ?? new Date().toISOString()
	const full = resume
		? resume.full
		: isDue(cursor?.editedSince ? cursor.listedAt : null, options.reconcileEveryHours * 60)
	const walk = resume ? resume.walk : full || isDue(cursor?.discoveredAt ?? null, options.discoverEveryMinutes)
	const refresh = !resume && full && isDue(cursor?.refreshEpoch ?? null, options.refreshEveryHours * 60)
	const since = resume ? resume.since : walk ? null : cursor!.editedSince
	const run: Run = {
		session: await NotionSession.open(ctx, options.apiUrl, options.requestsPerSecond, options.maxRateLimitWaitSeconds),
		ctx,
		options,
		seen: new Set(),
		dataSources: new Map(),
		newest: resume ? resume.newest : (cursor?.editedSince ?? null),
		oldestFailed: null,
		refreshEpoch: refresh || !cursor?.refreshEpoch ? startedAt : cursor.refreshEpoch,
		searchCursor: resume?.phase === 'search' ? resume.searchCursor : null,
	}
	const listed: { id: string; title: string | null }[] = resume?.dataSources ?? []
	for (const dataSource of listed) run.dataSources.set(dataSource.id, dataSource.title)
	// A checkpoint mid-run keeps the cursor as it was and says where to go on from.
	let handled = 0
	let lastCheckpoint = Date.now()
	const progress = (
		at: Omit<Resume, 'startedAt' | 'full' | 'walk' | 'since' | 'newest' | 'dataSources'>,
	): Event | null => {
		if (++handled % CHECKPOINT_EVERY_PAGES !== 0 && Date.now() - lastCheckpoint < CHECKPOINT_EVERY_MS) return null
		lastCheckpoint = Date.now()
		const state: Resume = { startedAt, full, walk, since, newest: run.newest, dataSources: listed, ...at }
		return {
			type: 'checkpoint',
			cursor: {
				editedSince: cursor?.editedSince ?? null,
				listedAt: cursor?.listedAt ?? null,
				discoveredAt: cursor?.discoveredAt ?? null,
				refreshEpoch: run.refreshEpoch,
				pendingGone: cursor?.pendingGone ?? null,
				resume: JSON.stringify(state),
			},
		}
	}
	if (resume?.phase !== 'rows') {
		for await (const item of search(run, {}, since)) {
			if (item.object === 'data_source') {
				const id = String(item.id)
				const title = plainText(item.title) || null
				run.dataSources.set(id, title)
				if (!listed.some((known) => known.id === id)) listed.push({ id, title })
				continue
			}
			// Other kinds (a `database` of older API versions) are read through their data sources.
			if (item.object !== undefined && item.object !== 'page') continue
			yield* handlePage(run, item)
			const checkpoint = progress({ phase: 'search', searchCursor: run.searchCursor, rowsFrom: 0 })
			if (checkpoint) yield checkpoint
		}
	}
	if (full) {
		for (let index = resume?.phase === 'rows' ? resume.rowsFrom : 0; index < listed.length; index++) {
			for await (const event of rowsOf(run, listed[index]!.id, handlePage)) {
				yield event
				if (event.type !== 'upsert' && event.type !== 'unchanged') continue
				const checkpoint = progress({ phase: 'rows', searchCursor: null, rowsFrom: index })
				if (checkpoint) yield checkpoint
			}
		}
	}
	yield* trashed(run)
	const pendingGone = yield* confirmGone(run, full, parseIds(cursor?.pendingGone), handlePage)
	const editedSince =
		run.oldestFailed !== null && (run.newest === null || run.oldestFailed < run.newest) ? run.oldestFailed : run.newest
	yield {
		type: 'checkpoint',
		cursor: {
			editedSince,
			listedAt: full ? startedAt : (cursor?.listedAt ?? null),
			discoveredAt: walk ? startedAt : (cursor?.discoveredAt ?? null),
			refreshEpoch: run.refreshEpoch,
			pendingGone: JSON.stringify(pendingGone),
			resume: null,
		},
	}
}

function resumeOf(json: string | null | undefined): Resume | null {
	if (!json) return null
	try {
		const resume = JSON.parse(json) as Resume
		return Date.now() - Date.parse(resume.startedAt) < RESUME_FOR_MS ? resume : null
	} catch {
		return null
	}
}

function isDue(last: string | null, everyMinutes: number): boolean {
	return !last || Date.now() - Date.parse(last) >= everyMinutes * 60_000
}

const parseIds = (json: string | null | undefined): string[] => {
	try {
		const ids = JSON.parse(json ?? '[]') as unknown
		return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : []
	} catch {
		return []
	}
}

export type Listed = Record<string, unknown> & { object?: string; id?: unknown; last_edited_time?: unknown }

/** Search results, newest-edited first, every page of them; with `since`, only those edited at or after it. */
async function* search(run: Run, filter: { in_trash?: boolean }, since: string | null): AsyncGenerator<Listed> {
	const trash = filter.in_trash === true
	let cursor: string | undefined = trash ? undefined : (run.searchCursor ?? undefined)
	do {
		const request = (start: string | undefined) =>
			run.session.call((client, auth) =>
				client.search({
					auth,
					sort: { timestamp: 'last_edited_time', direction: 'descending' },
					page_size: 100,
					start_cursor: start,
					...(trash ? { filter: { in_trash: true } } : {}),
				}),
			)
		let page: Awaited<ReturnType<typeof request>>
		try {
			page = await request(cursor)
		} catch (error) {
			// A resumed cursor Notion no longer takes: the listing starts over.
			if (!cursor || statusOf(error) !== 400) throw error
			cursor = undefined
			page = await request(undefined)
		}
		if (!trash) run.searchCursor = cursor ?? null
		for (const item of page.results as Listed[]) {
			// Stamps are ISO times of one format, so text order is time order.
			if (since && typeof item.last_edited_time === 'string' && item.last_edited_time < since) return
			yield item
		}
		cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined
	} while (cursor)
}

/** Pages in the trash (kept there 30 days) are deleted; a trash search Notion refuses is noted, the run goes on. */
async function* trashed(run: Run): AsyncGenerator<Event> {
	const imported = run.ctx.importedIds ? new Set(await run.ctx.importedIds()) : null
	try {
		for await (const item of search(run, { in_trash: true }, null)) {
			if (typeof item.id !== 'string' || run.seen.has(item.id) || (imported && !imported.has(item.id))) continue
			yield { type: 'delete', externalId: item.id }
		}
	} catch (error) {
		if (!isRefused(error)) throw error
		yield { type: 'failure', externalId: null, error: `the trash could not be searched: ${messageOf(error)}` }
	}
}

export async function* handlePage(run: Run, item: Listed): AsyncGenerator<Event> {
	const malformed = malformation(item)
	if (malformed) {
		const id = typeof item.id === 'string' ? item.id : null
		if (id) run.seen.add(id)
		yield { type: 'failure', externalId: id, error: `Notion sent a malformed page: ${malformed}` }
		return
	}
	const listedPage = item as unknown as NotionPage
	if (run.seen.has(listedPage.id)) return
	run.seen.add(listedPage.id)
	if (isTrashed(listedPage)) {
		yield { type: 'delete', externalId: listedPage.id }
		return
	}
	if (run.newest === null || listedPage.last_edited_time > run.newest) run.newest = listedPage.last_edited_time
	for (const version of listedVersions(listedPage, run.refreshEpoch)) {
		if (await run.ctx.hasVersion(listedPage.id, version)) {
			yield { type: 'unchanged', externalId: listedPage.id }
			return
		}
	}
	try {
		const page = await withCompleteProperties(run.session, listedPage)
		const tree = await readBlockTree(run.session, page.id, run.options.maxBlocksPerPage)
		const database = isRow(page) ? { title: await dataSourceTitle(run, dataSourceOf(page)) } : null
		yield { type: 'upsert', document: documentOf(page, tree, database, run.refreshEpoch) }
	} catch (error) {
		if (!isRefused(error) && !isUnavailable(error)) throw error
		const stamp = listedPage.last_edited_time
		if (run.oldestFailed === null || stamp < run.oldestFailed) run.oldestFailed = stamp
		yield { type: 'failure', externalId: listedPage.id, error: `could not read the page: ${messageOf(error)}` }
	}
}

/** A data source's title, read once a run (rows of data sources the search did not list). */
async function dataSourceTitle(run: Run, id: string | null): Promise<string | null> {
	if (!id) return null
	if (run.dataSources.has(id)) return run.dataSources.get(id) ?? null
	let title: string | null = null
	try {
		const dataSource = (await run.session.call((client, auth) =>
			client.dataSources.retrieve({ auth, data_source_id: id }),
		)) as { title?: unknown }
		title = plainText(dataSource.title) || null
	} catch (error) {
		if (!isRefused(error)) throw error
	}
	run.dataSources.set(id, title)
	return title
}

/**
 * One failed page read again (the runtime's retry of a failed item). In the trash: gone. A 404 is not taken as gone
 * here (a full listing confirms that twice): the attempt fails and the item waits for the next one.
 */
export async function readNotionPage(
	ctx: SyncContext<unknown>,
	pageId: string,
	options: SyncOptions,
): Promise<ExternalDocument | 'gone' | 'unchanged'> {
	const run: Run = {
		session: await NotionSession.open(ctx, options.apiUrl, options.requestsPerSecond, options.maxRateLimitWaitSeconds),
		ctx,
		options,
		seen: new Set(),
		dataSources: new Map(),
		newest: null,
		oldestFailed: null,
		// Not the current period (the cursor is not at hand): a page showing others' content is read once more when
		// a listing next names it, and gets the period's version then.
		refreshEpoch: 'retried',
		searchCursor: null,
	}
	let listed: Listed
	try {
		listed = (await run.session.call((client, auth) => client.pages.retrieve({ auth, page_id: pageId }))) as Listed
	} catch (error) {
		if (isRefused(error)) throw new ItemError(`Notion refused the page: ${messageOf(error)}`)
		throw error
	}
	for await (const event of handlePage(run, listed)) {
		if (event.type === 'delete') return 'gone'
		if (event.type === 'unchanged') return 'unchanged'
		if (event.type === 'upsert') return event.document
		if (event.type === 'failure') throw new ItemError(event.error)
	}
	return 'unchanged'
}
