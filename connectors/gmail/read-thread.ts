import type { gmail_v1 } from 'googleapis/build/src/apis/gmail'
import { type ExternalDocument, runIsolated } from '../../core/index.ts'
import { statusOf } from '../google/index.ts'
import { attachmentDocuments } from './attachments.ts'
import type { ReadMessage } from './in-thread.ts'
import { UnreadableMessageError } from './mime.ts'
import { DISCARDED_LABELS, wantedLabels } from './options.ts'
import { type GmailRun, versionOf } from './run.ts'
import { dateOf, renderThread, type ThreadMessage } from './thread.ts'

const IN_THREAD = new URL('./in-thread.ts', import.meta.url).href
/** A thread's messages are read in a worker thread within this time, or the thread fails. */
const READ_TIMEOUT_MS = 60_000

export type ThreadRead =
	| { kind: 'gone' }
	| { kind: 'unchanged'; attachmentIds: string[] }
	| {
			kind: 'read'
			/** null: the thread's text has not changed (only its attachments were read). */
			document: ExternalDocument | null
			attachments: ExternalDocument[]
			failures: { externalId: string; error: string }[]
	  }

/**
 * A thread's messages outside trash and spam; gone when none is left in INBOX or a chosen label. Messages are read
 * (`format=raw`) only when the set of messages changed, or, during a full listing with attachments on, to know them.
 */
export async function readThread(run: GmailRun, threadId: string, listing: boolean): Promise<ThreadRead> {
	let thread: gmail_v1.Schema$Thread
	try {
		thread = (
			await run.api.call(() => run.api.gmail.users.threads.get({ userId: 'me', id: threadId, format: 'minimal' }))
		).data
	} catch (error) {
		if (statusOf(error) === 404) return { kind: 'gone' }
		throw error
	}
	const wanted = wantedLabels(run.ctx.settings)
	const kept = (thread.messages ?? []).filter(
		(message) => message.id && !message.labelIds?.some((label) => DISCARDED_LABELS.includes(label)),
	)
	if (!kept.some((message) => message.labelIds?.some((label) => wanted.includes(label)))) return { kind: 'gone' }
	const version = versionOf(kept.map((message) => message.id!))
	const unchanged = await run.ctx.hasVersion(threadId, version)
	if (unchanged && !(listing && run.includeAttachments)) return { kind: 'unchanged', attachmentIds: [] }

	const tooLarge = kept.find((message) => (message.sizeEstimate ?? 0) > run.limits.maxMessageBytes)
	if (tooLarge) {
		throw new UnreadableMessageError(
			`GMAIL_MESSAGE_TOO_LARGE: message ${tooLarge.id} is ${tooLarge.sizeEstimate} bytes (limit ${run.limits.maxMessageBytes})`,
		)
	}
	const raws: { id: string; raw: Uint8Array; internalDate: number }[] = []
	for (const message of kept) {
		const { data } = await run.api.call(() =>
			run.api.gmail.users.messages.get({ userId: 'me', id: message.id!, format: 'raw' }),
		)
		const raw = Buffer.from(data.raw ?? '', 'base64url')
		if (raw.length > run.limits.maxMessageBytes) {
			throw new UnreadableMessageError(
				`GMAIL_MESSAGE_TOO_LARGE: message ${message.id} is ${raw.length} bytes (limit ${run.limits.maxMessageBytes})`,
			)
		}
		raws.push({ id: message.id!, raw: new Uint8Array(raw), internalDate: Number(data.internalDate ?? 0) })
	}
	const read = await runIsolated<ReadMessage[]>(IN_THREAD, 'readMessages', [raws.map(({ id, raw }) => ({ id, raw }))], {
		timeoutMs: READ_TIMEOUT_MS,
		signal: run.ctx.signal,
	})
	const messages: ThreadMessage[] = raws.map((raw, index) => ({
		id: raw.id,
		internalDate: raw.internalDate,
		decoded: read[index]!.decoded,
		body: read[index]!.body,
	}))
	const { title, content } = renderThread(messages)
	const first = [...messages].sort((a, b) => a.internalDate - b.internalDate)
	const names = messages.flatMap((message) => message.decoded.attachments.map((attachment) => attachment.name))
	const document: ExternalDocument = {
		externalId: threadId,
		version,
		title,
		content,
		url: `https://mail.google.com/mail/u/0/#all/${threadId}`,
		sourceType: 'gmail_thread',
		metadata: {
			type: 'gmail_thread',
			threadId,
			subject: title,
			from: first[0]?.decoded.from ?? '',
			to: first[0]?.decoded.to ?? '',
			date: first.length > 0 ? dateOf(first.at(-1)!) : '',
			messageCount: messages.length,
			attachmentCount: names.length,
			attachmentNames: names.join(', '),
		},
	}
	const { attachments, failures } = run.includeAttachments
		? attachmentDocuments(threadId, messages, run.limits.maxAttachmentBytes)
		: { attachments: [], failures: [] }
	return { kind: 'read', document: unchanged ? null : document, attachments, failures }
}
