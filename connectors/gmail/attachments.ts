import type { ExternalDocument } from '../../core/index.ts'
import type { ThreadMessage } from './thread.ts'

/** What the service's file ingestion reads; other attachments (archives, calendar invites) are left out. */
const SUPPORTED_TYPES = new Set([
	'application/pdf',
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	'application/vnd.openxmlformats-officedocument.presentationml.presentation',
	'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	'text/csv',
	'text/html',
	'text/markdown',
	'text/plain',
	'application/json',
	'image/png',
	'image/jpeg',
	'image/webp',
	'image/bmp',
])
const SUPPORTED_EXTENSIONS = /\.(pdf|docx|pptx|xlsx|csv|html?|md|markdown|txt|json|png|jpe?g|webp|bmp)$/i

/**
 * Each supported attachment as its own item, through file ingestion. Its external id derives from the thread
 * (`<thread>:<message>:<n>`), so it goes with its thread, and its version is its message (messages never change).
 */
export function attachmentDocuments(
	threadId: string,
	messages: ThreadMessage[],
	maxBytes: number,
): { attachments: ExternalDocument[]; failures: { externalId: string; error: string }[] } {
	const attachments: ExternalDocument[] = []
	const failures: { externalId: string; error: string }[] = []
	for (const message of messages) {
		message.decoded.attachments.forEach((attachment, index) => {
			if (!SUPPORTED_TYPES.has(attachment.mimeType) && !SUPPORTED_EXTENSIONS.test(attachment.name)) return
			const externalId = `${threadId}:${message.id}:${index}`
			if (attachment.bytes.length > maxBytes) {
				failures.push({
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
