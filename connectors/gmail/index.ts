import { defineConnector, type OAuth2Auth, PLUGIN_API_VERSION } from '../../core/index.ts'
import { DEFAULT_SETTINGS, GMAIL_SCOPES, type GmailCursor, type GmailOptions, type GmailSettings } from './options.ts'
import { configureLabels, listLabels } from './resources.ts'
import { syncGmail } from './sync.ts'
import { gmailWebhook } from './webhook.ts'

export type { GmailCursor, GmailOptions, GmailSettings } from './options.ts'

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`)

/** Google's OAuth with offline access (a refresh token), the same application as Google Drive. */
function googleAuth(options: GmailOptions): OAuth2Auth {
	const userinfoUrl = options.userinfoUrl || 'https://openidconnect.googleapis.com/v1/userinfo'
	return {
		type: 'oauth2',
		authorizeUrl: options.authorizeUrl || 'https://accounts.google.com/o/oauth2/v2/auth',
		tokenUrl: options.tokenUrl || 'https://oauth2.googleapis.com/token',
		revokeUrl: options.revokeUrl || 'https://oauth2.googleapis.com/revoke',
		scopes: GMAIL_SCOPES,
		pkce: true,
		// Google issues a refresh token only with offline access, and again only when consent is asked for.
		authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
		env: { clientId: 'GOOGLE_CLIENT_ID', clientSecret: 'GOOGLE_CLIENT_SECRET' },
		settingsKey: 'googleDrive',
		async identity(tokens) {
			const response = await fetch(userinfoUrl, { headers: { authorization: `Bearer ${tokens.accessToken}` } })
			if (!response.ok) return { email: null }
			const user = (await response.json()) as { email?: unknown }
			return { email: typeof user.email === 'string' ? user.email : null }
		},
	}
}

/** Gmail: one document per thread of INBOX and the chosen labels, kept in step through the mailbox history. */
export function gmail(options: GmailOptions = {}) {
	const apiUrl = withSlash(options.apiUrl || 'https://gmail.googleapis.com/')
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
		auth: googleAuth(options),
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
	})
}
