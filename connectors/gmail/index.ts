import { defineConnector, PLUGIN_API_VERSION } from '../../core/index.ts'
import { googleOAuth } from '../google/index.ts'
import { DEFAULT_SETTINGS, GMAIL_SCOPE, type GmailCursor, type GmailOptions, type GmailSettings } from './options.ts'
import { readGmailItem } from './read-item.ts'
import { configureLabels, listLabels } from './resources.ts'
import { syncGmail } from './sync.ts'
import { gmailWebhook } from './webhook.ts'

export type { GmailCursor, GmailOptions, GmailSettings } from './options.ts'

/** Gmail: one document per thread of INBOX and the chosen labels, kept in step through the mailbox history. */
export function gmail(options: GmailOptions = {}) {
	const apiUrl = options.apiUrl || undefined
	const limits = {
		maxMessageBytes: options.maxMessageBytes ?? 25 * 1024 * 1024,
		maxAttachmentBytes: options.maxAttachmentBytes ?? 25 * 1024 * 1024,
	}
	return defineConnector<GmailCursor, GmailSettings>({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: 'gmail',
		provider: 'gmail',
		displayName: 'Gmail',
		auth: googleOAuth({ ...options, scopes: [GMAIL_SCOPE], settingsKey: 'googleDrive' }),
		schedule: { everyHours: 4 },
		defaultSettings: DEFAULT_SETTINGS,
		resources: {
			list: (ctx) => listLabels(apiUrl, ctx),
			configure: (ctx, resources) => configureLabels(ctx.settings, resources),
		},
		webhook: gmailWebhook({
			apiUrl,
			topic: options.pubsubTopic || null,
			audience: options.pushAudience || null,
			serviceAccount: options.pushServiceAccount || null,
			jwksUrl: options.pushJwksUrl || 'https://www.googleapis.com/oauth2/v3/certs',
		}),
		sync: (ctx, cursor) => syncGmail(ctx, cursor, { apiUrl, limits }),
		readItem: (ctx, externalId) => readGmailItem(ctx, externalId, { apiUrl, limits }),
	})
}
