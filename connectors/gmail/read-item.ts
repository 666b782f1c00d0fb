import { type ExternalDocument, ItemError, type SyncContext } from '../../core/index.ts'
import { UnreadableMessageError } from './mime.ts'
import type { GmailSettings } from './options.ts'
import { readThread } from './read-thread.ts'
import type { ThreadLimits } from './run.ts'
import { gmailRun } from './sync.ts'

/**
 * One item read again (a failed one due for retry): a thread (`<threadId>`) or an attachment
 * (`<threadId>:<messageId>:<n>`), through its thread.
 */
export async function readGmailItem(
	ctx: SyncContext<GmailSettings>,
	externalId: string,
	options: { apiUrl: string | undefined; limits: ThreadLimits },
): Promise<ExternalDocument | 'gone' | 'unchanged'> {
	const run = await gmailRun(ctx, options)
	const [threadId, ...attachment] = externalId.split(':')
	let thread: Awaited<ReturnType<typeof readThread>>
	try {
		thread = await readThread(run, threadId!, attachment.length > 0)
	} catch (error) {
		if (error instanceof UnreadableMessageError) throw new ItemError(error.message, { retry: 'permanent' })
		throw error
	}
	if (thread.kind === 'gone') return 'gone'
	if (attachment.length === 0) return thread.kind === 'read' && thread.document ? thread.document : 'unchanged'
	if (thread.kind !== 'read') return 'gone'
	const failure = thread.failures.find((candidate) => candidate.externalId === externalId)
	if (failure) throw new ItemError(failure.error, { retry: 'permanent' })
	return thread.attachments.find((candidate) => candidate.externalId === externalId) ?? 'gone'
}
