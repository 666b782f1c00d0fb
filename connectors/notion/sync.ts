import type { SyncContext, SyncEvent } from '../../core/index.ts'
import { readBlockTree } from './blocks.ts'
import { isRefused, NotionSession } from './client.ts'
import type { NotionCursor } from './options.ts'
import { dataSourceOf, documentOf, isRow, isTrashed, listedVersion, malformation, type NotionPage } from './page.ts'
import { plainText } from './rich-text.ts'

type Event = SyncEvent<NotionCursor>

export interface SyncOptions {
	apiUrl: string
	requestsPerSecond: number
	reconcileEveryHours: number
	maxBlocksPerPage: number
}

interface Run {
	session: NotionSession
	ctx: SyncContext<unknown>
	options: SyncOptions
	/** Pages handled this run (a row is listed by search and by its data source). */
	seen: Set<string>
	/** Pages that exist now (for reconciliation after a full listing). */
	present: string[]
	dataSources: Map<string, string | null>
	newest: string | null
	/** The oldest stamp of a page that failed: the next incremental run lists from there again. */
	oldestFailed: string | null
	complete: boolean
}

/**
 * The pages and databases shared with the integration, newest-edited first. A full listing (the first run, then
 * every `reconcileEveryHours`) reads every page and data source row and deletes what is no longer there; the runs
 * between read only what was edited since the newest stamp seen, and what was moved to the trash since.
 */
export async function* syncNotion(
	ctx: SyncContext<unknown>,
	cursor: NotionCursor | null,
	options: SyncOptions,
): AsyncGenerator<Event> {
	const startedAt = new Date().toISOString()
	const full = isFullListingDue(cursor, options.reconcileEveryHours)
	const since = full ? null : cursor!.editedSince
	const run: Run = {
		session: await NotionSession.open(ctx, options.apiUrl, options.requestsPerSecond),
		ctx,
		options,
		seen: new Set(),
		present: [],
		dataSources: new Map(),
		newest: cursor?.editedSince ?? null,
		oldestFailed: null,
		complete: true,
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
	if (full) {
		for (const dataSource of listed) yield* rowsOf(run, dataSource.id)
	} else {
		for await (const item of search(run, { in_trash: true }, since)) {
			if (typeof item.id === 'string' && !run.seen.has(item.id)) yield { type: 'delete', externalId: item.id }
		}
	}
	if (full && run.complete) yield { type: 'present', externalIds: run.present, complete: true }
	const editedSince =
		run.oldestFailed !== null && (run.newest === null || run.oldestFailed < run.newest) ? run.oldestFailed : run.newest
	yield {
		type: 'checkpoint',
		cursor: { editedSince, listedAt: full && run.complete ? startedAt : (cursor?.listedAt ?? null) },
	}
}

function isFullListingDue(cursor: NotionCursor | null, everyHours: number): boolean {
	if (!cursor?.editedSince || !cursor.listedAt) return true
	return Date.now() - Date.parse(cursor.listedAt) >= everyHours * 3_600_000
}

type Listed = Record<string, unknown> & { object?: string; id?: unknown; last_edited_time?: unknown }

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
		if (page.request_status?.type === 'incomplete') run.complete = false
		for (const item of page.results as Listed[]) {
			// Stamps are ISO times of one format, so text order is time order.
			if (since && typeof item.last_edited_time === 'string' && item.last_edited_time < since) return
			yield item
		}
		cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined
	} while (cursor)
}

/** Every row of a data source (rows search did not list are handled here). */
async function* rowsOf(run: Run, dataSourceId: string): AsyncGenerator<Event> {
	let cursor: string | undefined
	do {
		let page: Awaited<ReturnType<NotionSession['client']['dataSources']['query']>>
		try {
			page = await run.session.call((client, auth) =>
				client.dataSources.query({ auth, data_source_id: dataSourceId, start_cursor: cursor, page_size: 100 }),
			)
		} catch (error) {
			if (!isRefused(error)) throw error
			// Not shared after all, or gone: its rows were listed by search if they are still there.
			run.complete = false
			yield { type: 'failure', externalId: null, error: `database ${dataSourceId}: ${messageOf(error)}` }
			return
		}
		if (page.request_status?.type === 'incomplete') run.complete = false
		for (const row of page.results as Listed[]) if (row.object === 'page') yield* handlePage(run, row)
		cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined
	} while (cursor)
}

async function* handlePage(run: Run, item: Listed): AsyncGenerator<Event> {
	const malformed = malformation(item)
	if (malformed) {
		const id = typeof item.id === 'string' ? item.id : null
		if (id) run.present.push(id)
		yield { type: 'failure', externalId: id, error: `Notion sent a malformed page: ${malformed}` }
		return
	}
	const page = item as unknown as NotionPage
	if (run.seen.has(page.id)) return
	run.seen.add(page.id)
	if (isTrashed(page)) {
		yield { type: 'delete', externalId: page.id }
		return
	}
	run.present.push(page.id)
	if (run.newest === null || page.last_edited_time > run.newest) run.newest = page.last_edited_time
	if (await run.ctx.hasVersion(page.id, listedVersion(page))) {
		yield { type: 'unchanged', externalId: page.id }
		return
	}
	try {
		const tree = await readBlockTree(run.session, page.id, run.options.maxBlocksPerPage)
		const database = isRow(page) ? { title: await dataSourceTitle(run, dataSourceOf(page)) } : null
		yield { type: 'upsert', document: documentOf(page, tree, database) }
	} catch (error) {
		if (!isRefused(error)) throw error
		if (run.oldestFailed === null || page.last_edited_time < run.oldestFailed) run.oldestFailed = page.last_edited_time
		yield { type: 'failure', externalId: page.id, error: `could not read the page: ${messageOf(error)}` }
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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
