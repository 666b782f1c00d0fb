import type { SyncContext, SyncEvent } from '../../core/index.ts'
import { readBlockTree } from './blocks.ts'
import { isRefused, messageOf, NotionSession } from './client.ts'
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
}

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
	const startedAt = new Date().toISOString()
	const full = isDue(cursor?.editedSince ? cursor.listedAt : null, options.reconcileEveryHours * 60)
	const walk = full || isDue(cursor?.discoveredAt ?? null, options.discoverEveryMinutes)
	const refresh = full && isDue(cursor?.refreshEpoch ?? null, options.refreshEveryHours * 60)
	const since = walk ? null : cursor!.editedSince
	const run: Run = {
		session: await NotionSession.open(ctx, options.apiUrl, options.requestsPerSecond),
		ctx,
		options,
		seen: new Set(),
		dataSources: new Map(),
		newest: cursor?.editedSince ?? null,
		oldestFailed: null,
		refreshEpoch: refresh || !cursor?.refreshEpoch ? startedAt : cursor.refreshEpoch,
	}
	const listed: { id: string; title: string | null }[] = []
	for await (const item of search(run, {}, since)) {
		if (item.object === 'data_source') {
			const id = String(item.id)
			const title = plainText(item.title) || null
			run.dataSources.set(id, title)
			listed.push({ id, title })
			continue
		}
		// Other kinds (a `database` of older API versions) are read through their data sources.
		if (item.object !== undefined && item.object !== 'page') continue
		yield* handlePage(run, item)
	}
	if (full) for (const dataSource of listed) yield* rowsOf(run, dataSource.id, handlePage)
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
		},
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
	let cursor: string | undefined
	do {
		const page = await run.session.call((client, auth) =>
			client.search({
				auth,
				sort: { timestamp: 'last_edited_time', direction: 'descending' },
				page_size: 100,
				start_cursor: cursor,
				...(filter.in_trash ? { filter: { in_trash: true } } : {}),
			}),
		)
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
		if (!isRefused(error)) throw error
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
