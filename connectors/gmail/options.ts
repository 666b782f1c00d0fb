import type { GoogleEndpointOptions } from '../google/index.ts'

/**
 * Where the Gmail connector finds Google (`apiUrl`: the origin of Gmail's and userinfo's paths, unset: Google's own),
 * and how it reads mail.
 */
export interface GmailOptions extends GoogleEndpointOptions {
	/** Pub/Sub push: the topic `users.watch` publishes to (`projects/P/topics/T`); none: no push, schedule only. */
	pubsubTopic?: string
	/** The audience configured on the push subscription; the push's OIDC token must name it. */
	pushAudience?: string
	/** The service account the push subscription signs as; when set, the token's `email` must be it. */
	pushServiceAccount?: string
	/** Keys that sign push tokens. Default Google's `https://www.googleapis.com/oauth2/v3/certs`. */
	pushJwksUrl?: string
	/** Largest message read, in bytes (Gmail's size estimate, then the raw bytes); a larger one fails its thread. */
	maxMessageBytes?: number
	/** Largest attachment imported as a file, in bytes. */
	maxAttachmentBytes?: number
}

export interface GmailSettings {
	/** Label ids imported besides INBOX, chosen through resources and configure. */
	labels: string[]
	/** Also import attachments of supported types, each as its own document. */
	includeAttachments: boolean
}

/**
 * `historyId`: the mailbox history the documents reflect. During a full listing, `fullLabel`/`fullPage` say where it
 * resumes; `historyId` is then the one taken before it began, so nothing that changes meanwhile is lost. `scope`
 * names the labels and options the documents were read with: another scope lists everything again.
 */
export interface GmailCursor {
	[key: string]: string | number | boolean | null
	historyId: string | null
	fullLabel: number | null
	fullPage: string | null
	scope: string
}

export const DEFAULT_SETTINGS: GmailSettings = { labels: [], includeAttachments: false }

export const INBOX = 'INBOX'

/**
 * Labels that take a message out of the imported mail, whatever other labels it carries. A draft is not mail yet,
 * and its message is replaced (a new id) on every save.
 */
export const DISCARDED_LABELS = ['TRASH', 'SPAM', 'DRAFT']

export const wantedLabels = (settings: GmailSettings) => [INBOX, ...settings.labels.filter((id) => id !== INBOX)]

export const scopeOf = (labels: string[], includeAttachments: boolean) =>
	`${labels.join(',')}${includeAttachments ? '+attachments' : ''}`

/** Read-only mail; googleOAuth adds the email scope that names the account. */
export const GMAIL_SCOPE = 'https://www.googleapis.com/auth/gmail.readonly'
