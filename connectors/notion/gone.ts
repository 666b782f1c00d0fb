import type { SyncEvent } from '../../core/index.ts'
import { isRefused, statusOf } from './client.ts'
import type { NotionCursor } from './options.ts'
import { isTrashed } from './page.ts'
import type { Listed, Run } from './sync.ts'

type Event = SyncEvent<NotionCursor>

/**
 * Deletions without trusting search to be exhaustive ("Search is not guaranteed to return everything"): after a full
 * listing, each imported page it did not list is retrieved. In the trash: deleted. Readable: kept (and read again if
 * it changed). 404 (gone, or no longer shared): deleted when the previous run saw a 404 for it too, else remembered.
 * Pages remembered from the previous run are checked on every run. Returns the pages that answered 404 once.
 */
export async function* confirmGone(
	run: Run,
	full: boolean,
	pending: string[],
	handlePage: (run: Run, item: Listed) => AsyncGenerator<Event>,
): AsyncGenerator<Event, string[]> {
	const candidates = new Set(pending.filter((id) => !run.seen.has(id)))
	if (full && run.ctx.importedIds) {
		for (const id of await run.ctx.importedIds()) if (!run.seen.has(id)) candidates.add(id)
	}
	const remembered = new Set(pending)
	const goneOnce: string[] = []
	for (const id of candidates) {
		let page: Listed
		try {
			page = (await run.session.call((client, auth) => client.pages.retrieve({ auth, page_id: id }))) as Listed
		} catch (error) {
			if (statusOf(error) === 404) {
				if (remembered.has(id)) yield { type: 'delete', externalId: id }
				else goneOnce.push(id)
				continue
			}
			// Refused otherwise (403, 400): nothing says it is gone, so it is kept.
			if (!isRefused(error)) throw error
			continue
		}
		if (isTrashed(page as never)) yield { type: 'delete', externalId: id }
		else yield* handlePage(run, page)
	}
	return goneOnce
}
