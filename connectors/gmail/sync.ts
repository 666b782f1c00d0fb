import type { gmail_v1 } from 'googleapis/build/src/apis/gmail'
import type { SyncContext, SyncEvent } from '../../core/index.ts'
import { endsRun, statusOf } from '../google/index.ts'
import { gmailClient } from './client.ts'
import { UnreadableMessageError } from './mime.ts'
import { type GmailCursor, type GmailSettings, scopeOf, wantedLabels } from './options.ts'
import { readThread } from './read-thread.ts'
import type { GmailRun, ThreadLimits } from './run.ts'

type Event = SyncEvent<GmailCursor>

const THREADS_PER_PAGE = 100
const HISTORY_PER_PAGE = 500

/**
 * From a history id: the threads the mailbox history touched since. Without one (or when Google no longer keeps
 * that history, 404): every thread of INBOX and the chosen labels, resumable page by page.
 */
export async function* syncGmail(
	ctx: SyncContext<GmailSettings>,
	cursor: GmailCursor | null,
	options: { apiUrl: string | undefined; limits: ThreadLimits },
): AsyncGenerator<Event> {
	const run = await gmailRun(ctx, options)
	const current = cursor?.scope === run.scope ? cursor : null
	if (current?.historyId && current.fullLabel === null) {
		if (yield* incremental(run, current.historyId)) return
		ctx.logger.info('gmail history too old: listing every thread again', { connectionId: ctx.connectionId })
		return yield* full(run, null)
	}
	yield* full(run, current?.historyId && current.fullLabel !== null ? current : null)
}

export async function gmailRun(
	ctx: SyncContext<GmailSettings>,
	options: { apiUrl: string | undefined; limits: ThreadLimits },
): Promise<GmailRun> {
	const includeAttachments = ctx.settings.includeAttachments || ctx.metadata.includeAttachments === true
	return {
		api: await gmailClient(options.apiUrl, ctx),
		ctx,
		limits: options.limits,
		includeAttachments,
		scope: scopeOf(wantedLabels(ctx.settings), includeAttachments),
	}
}

async function* full(run: GmailRun, resume: GmailCursor | null): AsyncGenerator<Event> {
	// Taken before listing: whatever changes during the listing is in the history read next time.
	const historyId =
		resume?.historyId ?? (await run.api.call(() => run.api.gmail.users.getProfile({ userId: 'me' }))).data.historyId
	if (!historyId) throw new Error('Gmail returned no history id for the mailbox')
	const labels = wantedLabels(run.ctx.settings)
	const seen = new Set<string>()
	const present: string[] = []
	let complete = true
	let page = resume?.fullPage ?? null
	for (let label = resume?.fullLabel ?? 0; label < labels.length; label++) {
		for (;;) {
			let data: Awaited<ReturnType<typeof threadPage>>
			try {
				data = await threadPage(run, labels[label]!, page)
			} catch (error) {
				// Google kept refusing this label's listing (after retries): the other labels are still read, and this
				// listing deletes nothing.
				if (endsRun(error)) throw error
				yield { type: 'scope-failed', scope: `label ${labels[label]}`, error: (error as Error).message }
				complete = false
				page = null
				break
			}
			if (data === 'refused') {
				page = null
				continue
			}
			for (const thread of data.threads ?? []) {
				if (!thread.id || seen.has(thread.id)) continue
				seen.add(thread.id)
				const outcome = yield* syncThread(run, thread.id, true)
				if (outcome === null) complete = false
				else present.push(...outcome)
			}
			page = data.nextPageToken ?? null
			const next = page ? { fullLabel: label, fullPage: page } : { fullLabel: label + 1, fullPage: null }
			yield { type: 'checkpoint', cursor: { historyId, ...next, scope: run.scope } }
			if (!page) break
		}
	}
	// Only a listing that saw everything in this run knows what is gone (a resumed one saw only its rest).
	if (resume === null && complete) yield { type: 'present', externalIds: present, complete: true }
	yield { type: 'checkpoint', cursor: { historyId, fullLabel: null, fullPage: null, scope: run.scope } }
}

/**
 * One page of a label's threads. A page token kept from an earlier run that Google no longer takes (400) is
 * `refused`: the label is then listed from its first page (threads already held are not read again).
 */
async function threadPage(
	run: GmailRun,
	label: string,
	page: string | null,
): Promise<gmail_v1.Schema$ListThreadsResponse | 'refused'> {
	try {
		const { data } = await run.api.call(() =>
			run.api.gmail.users.threads.list({
				userId: 'me',
				labelIds: [label],
				maxResults: THREADS_PER_PAGE,
				...(page ? { pageToken: page } : {}),
			}),
		)
		return data
	} catch (error) {
		if (page === null || statusOf(error) !== 400) throw error
		run.ctx.logger.info('gmail refused a stored page token: listing the label again', { label })
		return 'refused'
	}
}

/** Threads the incremental sync reads between two checkpoints, at most. */
const CHECKPOINT_EVERY = 50

/** The threads one history record touched. */
function threadsOf(record: gmail_v1.Schema$History): string[] {
	const changed = [
		...(record.messages ?? []),
		...[
			...(record.messagesAdded ?? []),
			...(record.messagesDeleted ?? []),
			...(record.labelsAdded ?? []),
			...(record.labelsRemoved ?? []),
		].map((entry) => entry.message ?? {}),
	]
	return changed.flatMap((message) => (message.threadId ? [message.threadId] : []))
}

/**
 * The threads the history touched since `startHistoryId`, read record by record in history order; a checkpoint at
 * the last record whose threads are all read, every few dozen threads, so a stopped run resumes there. False when
 * Google no longer has that history (it keeps about a week).
 */
async function* incremental(run: GmailRun, startHistoryId: string): AsyncGenerator<Event, boolean> {
	const synced = new Set<string>()
	const checkpoint = (historyId: string): Event => ({
		type: 'checkpoint',
		cursor: { historyId, fullLabel: null, fullPage: null, scope: run.scope },
	})
	let reached = startHistoryId
	let sinceCheckpoint = 0
	let page: string | null = null
	do {
		let data: gmail_v1.Schema$ListHistoryResponse
		try {
			data = (
				await run.api.call(() =>
					run.api.gmail.users.history.list({
						userId: 'me',
						startHistoryId,
						maxResults: HISTORY_PER_PAGE,
						historyTypes: ['messageAdded', 'messageDeleted', 'labelAdded', 'labelRemoved'],
						...(page ? { pageToken: page } : {}),
					}),
				)
			).data
		} catch (error) {
			if (statusOf(error) === 404) return false
			throw error
		}
		for (const record of data.history ?? []) {
			for (const threadId of threadsOf(record)) {
				if (synced.has(threadId)) continue
				synced.add(threadId)
				yield* syncThread(run, threadId, false)
				sinceCheckpoint++
			}
			if (record.id) reached = record.id
			if (sinceCheckpoint >= CHECKPOINT_EVERY) {
				yield checkpoint(reached)
				sinceCheckpoint = 0
			}
		}
		page = data.nextPageToken ?? null
		// The last page's historyId is the mailbox's: every record up to it has been read.
		if (!page && data.historyId) reached = data.historyId
	} while (page)
	yield checkpoint(reached)
	return true
}

/**
 * One thread: deleted when no message of it is left outside trash and spam in INBOX or a chosen label, re-rendered
 * when its messages changed, attachments kept in step. Returns the external ids it holds now (null: unknown, it
 * failed), for a full listing's reconciliation.
 */
async function* syncThread(run: GmailRun, threadId: string, listing: boolean): AsyncGenerator<Event, string[] | null> {
	try {
		const thread = await readThread(run, threadId, listing)
		if (thread.kind === 'gone') {
			yield { type: 'delete', externalId: threadId }
			yield { type: 'present', prefix: `${threadId}:`, externalIds: [], complete: true }
			return []
		}
		if (thread.kind === 'unchanged') {
			yield { type: 'unchanged', externalId: threadId }
			return [threadId, ...thread.attachmentIds]
		}
		if (thread.document) yield { type: 'upsert', document: thread.document }
		else yield { type: 'unchanged', externalId: threadId }
		for (const attachment of thread.attachments) {
			if (await run.ctx.hasVersion(attachment.externalId, attachment.version ?? '')) {
				yield { type: 'unchanged', externalId: attachment.externalId }
			} else yield { type: 'upsert', document: attachment }
		}
		for (const failure of thread.failures) yield { type: 'failure', ...failure }
		const attachmentIds = thread.attachments.map((attachment) => attachment.externalId)
		yield { type: 'present', prefix: `${threadId}:`, externalIds: attachmentIds, complete: true }
		return [threadId, ...attachmentIds]
	} catch (error) {
		// Gmail's other 403s are mailbox-wide (the API off for the account, a domain policy): they end the run too.
		if (endsRun(error) || statusOf(error) === 403) throw error
		// A message that is not readable mail (or too large) stays so: it is not read again.
		const retry = error instanceof UnreadableMessageError ? 'permanent' : 'transient'
		yield { type: 'failure', externalId: threadId, error: (error as Error).message, retry }
		return null
	}
}
