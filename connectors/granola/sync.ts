import { ConnectorAuthError, type SyncContext, type SyncEvent } from '../../core/index.ts'
import type { GranolaClient } from './client.ts'
import { noteDocument } from './note.ts'
import type { GranolaCursor, NoteSummary } from './types.ts'

type Event = SyncEvent<GranolaCursor>

/**
 * Notes updated after the cursor (all of them the first time), each read in full only when its `updated_at` is
 * new; then the complete list of note ids, since Granola signals no deletions (core removes what is missing).
 */
export async function* syncGranola(
	ctx: SyncContext,
	cursor: GranolaCursor | null,
	client: GranolaClient,
): AsyncGenerator<Event> {
	const updatedAfter = cursor?.updatedAfter ?? null
	let newest = updatedAfter
	const listed: string[] = []
	for await (const summary of client.allNotes(updatedAfter)) {
		listed.push(summary.id)
		if (!newest || Date.parse(summary.updated_at) > Date.parse(newest)) newest = summary.updated_at
		yield* importNote(ctx, client, summary)
	}
	const present = updatedAfter === null ? listed : await allIds(client)
	yield { type: 'present', externalIds: present, complete: true }
	yield { type: 'checkpoint', cursor: { updatedAfter: newest } }
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
		if (error instanceof ConnectorAuthError || ctx.signal.aborted) throw error
		yield { type: 'failure', externalId: summary.id, error: `could not read note: ${(error as Error).message}` }
	}
}

async function allIds(client: GranolaClient): Promise<string[]> {
	const ids: string[] = []
	for await (const summary of client.allNotes(null)) ids.push(summary.id)
	return ids
}
