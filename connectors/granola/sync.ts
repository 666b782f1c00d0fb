import { ConnectorAuthError, RateLimitedError, type SyncContext, type SyncEvent } from '../../core/index.ts'
import type { GranolaClient } from './client.ts'
import { noteDocument } from './note.ts'
import type { GranolaCursor, NoteSummary } from './types.ts'

type Event = SyncEvent<GranolaCursor>

/** How far back of the listing's start the next listing begins: a day, as `updated_after` may be read as a date. */
const OVERLAP_MS = 24 * 3_600_000

/**
 * Notes updated after the cursor (all of them the first time), each read in full only when its `updated_at` is
 * new; then the list of note ids, since Granola signals no deletions: a held note missing from it is kept once,
 * remembered in the cursor, and left out of the list (so deleted) only when the next listing misses it too, since a
 * note being processed is left out of listings for a while. The
 * next cursor is the day before this listing started, not the newest `updated_at` seen: the listing's order is not
 * documented, so a note edited while it paged on may carry an older time than one listed later.
 */
export async function* syncGranola(
	ctx: SyncContext,
	cursor: GranolaCursor | null,
	client: GranolaClient,
): AsyncGenerator<Event> {
	const startedAt = Date.now()
	const updatedAfter = cursor?.updatedAfter ?? null
	const listed: string[] = []
	for await (const summary of client.allNotes(updatedAfter)) {
		listed.push(summary.id)
		yield* importNote(ctx, client, summary)
	}
	const present = updatedAfter === null ? listed : await allIds(client)
	// A note being (re)processed is left out of the listing for a while: one missing for the first time is kept, one
	// still missing at the next sync is gone.
	const listedIds = new Set(present)
	const missedBefore = new Set(missingOf(cursor))
	const held = ctx.importedIds ? await ctx.importedIds() : []
	const missing = held.filter((id) => !listedIds.has(id) && !missedBefore.has(id))
	yield { type: 'present', externalIds: [...present, ...missing], complete: true }
	yield {
		type: 'checkpoint',
		cursor: {
			updatedAfter: new Date(startedAt - OVERLAP_MS).toISOString().slice(0, 10),
			...(missing.length > 0 ? { missing: JSON.stringify(missing) } : {}),
		},
	}
}

function missingOf(cursor: GranolaCursor | null): string[] {
	try {
		const ids = JSON.parse(cursor?.missing ?? '[]')
		return Array.isArray(ids) ? ids.filter((id) => typeof id === 'string') : []
	} catch {
		return []
	}
}

async function* importNote(ctx: SyncContext, client: GranolaClient, summary: NoteSummary): AsyncGenerator<Event> {
	if (await ctx.hasVersion(summary.id, summary.updated_at)) {
		yield { type: 'unchanged', externalId: summary.id }
		return
	}
	try {
		const note = await client.note(summary.id)
		// Deleted (or back to processing) between the listing and now: the reconciliation settles it.
		if (!note) return
		yield { type: 'upsert', document: noteDocument({ ...summary, ...note }) }
	} catch (error) {
		if (error instanceof ConnectorAuthError || error instanceof RateLimitedError || ctx.signal.aborted) throw error
		// Transient: core reads it again (readItem) on later runs.
		yield { type: 'failure', externalId: summary.id, error: `could not read note: ${(error as Error).message}` }
	}
}

async function allIds(client: GranolaClient): Promise<string[]> {
	const ids: string[] = []
	for await (const summary of client.allNotes(null)) ids.push(summary.id)
	return ids
}
