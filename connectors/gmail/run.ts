import { createHash } from 'node:crypto'
import type { SyncContext } from '../../core/index.ts'
import type { GmailApi } from './client.ts'
import type { GmailSettings } from './options.ts'

export interface ThreadLimits {
	maxMessageBytes: number
	maxAttachmentBytes: number
}

/** One sync's client, connection and options. */
export interface GmailRun {
	api: GmailApi
	ctx: SyncContext<GmailSettings>
	limits: ThreadLimits
	includeAttachments: boolean
	/** The labels and options documents are read with (see GmailCursor.scope). */
	scope: string
}

/** The thread document's version: its messages (Gmail messages never change; label changes do not count). */
export const versionOf = (messageIds: string[]) =>
	createHash('sha256')
		.update([...messageIds].sort().join(','))
		.digest('hex')
		.slice(0, 32)
