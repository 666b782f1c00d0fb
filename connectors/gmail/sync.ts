import type { gmail_v1 } from 'googleapis/build/src/apis/gmail'
import { ConnectorAuthError, type SyncContext, type SyncEvent } from '../../core/index.ts'
import { endsRun, statusOf } from '../google/index.ts'
import { gmailClient, guarded } from './client.ts'
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
	const includeAttachments = ctx.settings.includeAttachments || ctx.metadata.includeAttachments === true
	const run: GmailRun = {
		gmail: await gmailClient(options.apiUrl, ctx),
		ctx,
		limits: options.limits,
		includeAttachments,
		scope: scopeOf(wantedLabels(ctx.settings), includeAttachments),
	}
	const current = cursor?.scope === run.scope ? cursor : null
	if (current?.historyId && current.fullLabel === null) {
		if (yield* incremental(run, current.historyId)) return
		ctx.logger.info('gmail history too old: listing every thread again', { connectionId: ctx.connectionId })
		return yield* full(run, null)
	}
	yield* full(run, current?.historyId && current.fullLabel !== null ? current : null)
}

async function* full(run: GmailRun, resume: GmailCursor | null): AsyncGenerator<Event> {
	// Taken before listing: whatever changes during the listing is in the history read next time.
	const historyId =
		resume?.historyId ?? (await guarded(() => run.gmail.users.getProfile({ userId: 'me' }))).data.historyId
	if (!historyId) throw new Error('Gmail returned no history id for the mailbox')
	const labels = wantedLabels(run.ctx.settings)
	const seen = new Set<string>()
	const present: string[] = []
	let complete = true
	let page = resume?.fullPage ?? null
	for (let label = resume?.fullLabel ?? 0; label < labels.length; label++) {
		do {
			const { data } = await guarded(() =>
				run.gmail.users.threads.list({
					userId: 'me',
					labelIds: [labels[label]!],
					maxResults: THREADS_PER_PAGE,
					...(page ? { pageToken: page } : {}),
				}),
			)
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
		} while (page)
	}
	// Only a listing that saw everything in this run knows what is gone (a resumed one saw only its rest).
	if (resume === null && complete) yield { type: 'present', externalIds: present, complete: true }
	yield { type: 'checkpoint', cursor: { historyId, fullLabel: null, fullPage: null, scope: run.scope } }
}

/** False when Google no longer has the history since `startHistoryId` (it keeps about a week). */
async function* incremental(run: GmailRun, startHistoryId: string): AsyncGenerator<Event, boolean> {
	const touched = new Set<string>()
	let latest = startHistoryId
	let page: string | null = null
	do {
		let data: gmail_v1.Schema$ListHistoryResponse
		try {
			data = (
				await guarded(() =>
					run.gmail.users.history.list({
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
			const changed = [
				...(record.messages ?? []),
				...[
					...(record.messagesAdded ?? []),
					...(record.messagesDeleted ?? []),
					...(record.labelsAdded ?? []),
					...(record.labelsRemoved ?? []),
				].map((entry) => entry.message ?? {}),
			]
			for (const message of changed) if (message.threadId) touched.add(message.threadId)
		}
		if (data.historyId) latest = data.historyId
		page = data.nextPageToken ?? null
	} while (page)
	for (const threadId of touched) yield* syncThread(run, threadId, false)
	yield { type: 'checkpoint', cursor: { historyId: latest, fullLabel: null, fullPage: null, scope: run.scope } }
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
		if (error instanceof ConnectorAuthError) throw error
		// Gmail's 403s are mailbox-wide (a rate limit, the API off for the account): they end the run as well.
		if (endsRun(error) || statusOf(error) === 403) throw error
		yield { type: 'failure', externalId: threadId, error: (error as Error).message }
		return null
	}
}
