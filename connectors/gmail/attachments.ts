import { type ExternalDocument, kindOfExtension, kindOfMime } from '../../core/index.ts'
import type { ThreadMessage } from './thread.ts'

/**
 * Each supported attachment as its own item, through file ingestion. Its external id derives from the thread
 * (`<thread>:<message>:<n>`), so it goes with its thread, and its version is its message (messages never change).
 */
export function attachmentDocuments(
	threadId: string,
	messages: ThreadMessage[],
	maxBytes: number,
): { attachments: ExternalDocument[]; failures: { externalId: string; error: string; retry: 'permanent' }[] } {
	const attachments: ExternalDocument[] = []
	const failures: { externalId: string; error: string; retry: 'permanent' }[] = []
	for (const message of messages) {
		message.decoded.attachments.forEach((attachment, index) => {
			// Only what file ingestion reads (by its type or its name); archives, calendar invites and such are left out.
			if (!kindOfMime(attachment.mimeType) && !kindOfExtension(attachment.name)) return
			const externalId = `${threadId}:${message.id}:${index}`
			if (attachment.bytes.length > maxBytes) {
				failures.push({
					retry: 'permanent',
					externalId,
					error: `GMAIL_ATTACHMENT_TOO_LARGE: ${attachment.name} is ${attachment.bytes.length} bytes (limit ${maxBytes})`,
				})
				return
			}
			attachments.push({
				externalId,
				version: message.id,
				title: attachment.name,
				file: { bytes: attachment.bytes, name: attachment.name, mimeType: attachment.mimeType },
				url: `https://mail.google.com/mail/u/0/#all/${threadId}`,
				sourceType: 'gmail_attachment',
				metadata: {
					type: 'gmail_attachment',
					threadId,
					messageId: message.id,
					subject: message.decoded.subject,
					from: message.decoded.from,
				},
			})
		})
	}
	return { attachments, failures }
}
