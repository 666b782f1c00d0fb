import { defineConnector, PLUGIN_API_VERSION } from '../../core/index.ts'
import { graphClient } from './client.ts'
import {
	DEFAULT_SETTINGS,
	DEFAULT_SUBSCRIPTION_MINUTES,
	type Endpoints,
	filesScope,
	type OnedriveCursor,
	type OnedriveOptions,
	type OnedriveSettings,
} from './options.ts'
import { configureFolders, listFolders } from './resources.ts'
import { readOnedriveItem, syncOnedrive } from './sync.ts'
import { onedriveWebhook } from './webhook.ts'

export type { OnedriveCursor, OnedriveOptions, OnedriveSettings } from './options.ts'

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/** OneDrive (personal, work or school): the files of the whole drive or of chosen folders, through file ingestion. */
export function onedrive(options: OnedriveOptions = {}) {
	const loginUrl = trimSlash(options.loginUrl || 'https://login.microsoftonline.com')
	const tenant = options.tenant || 'common'
	const changeNotifications = options.changeNotifications ?? true
	const endpoints: Endpoints = {
		graphUrl: trimSlash(options.graphUrl || 'https://graph.microsoft.com'),
		maxFileBytes: options.maxFileBytes ?? 50 * 1024 * 1024,
		subscriptionMinutes: options.subscriptionMinutes ?? DEFAULT_SUBSCRIPTION_MINUTES,
		retry: options.retry ?? { delaySeconds: 3, maxRetries: 3 },
	}
	return defineConnector<OnedriveCursor, OnedriveSettings>({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: 'onedrive',
		provider: 'onedrive',
		displayName: 'OneDrive',
		auth: {
			type: 'oauth2',
			authorizeUrl: `${loginUrl}/${encodeURIComponent(tenant)}/oauth2/v2.0/authorize`,
			tokenUrl: `${loginUrl}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`,
			// offline_access: a refresh token; the files scope: the user's drive (read-write only because Graph refuses a
			// drive subscription without it).
			scopes: ['offline_access', 'User.Read', filesScope(changeNotifications)],
			pkce: true,
			refreshWithScopes: true,
			env: { clientId: 'MICROSOFT_CLIENT_ID', clientSecret: 'MICROSOFT_CLIENT_SECRET' },
			settingsKey: 'onedrive',
			// The identity platform's account chooser, even for a single signed-in account (Microsoft identity platform,
			// "OAuth 2.0 authorization code flow": prompt=select_account).
			authorizeParams: { prompt: 'select_account' },
			// The identity platform has no revocation endpoint for one grant; deleting the tokens is what remains.
			async identity(tokens) {
				const client = await graphClient(endpoints, async () => tokens.accessToken)
				const me = (await client.api('/me').select('mail,userPrincipalName').get()) as {
					mail?: string | null
					userPrincipalName?: string | null
				}
				return { email: me.mail || me.userPrincipalName || null }
			},
		},
		schedule: { everyHours: 4 },
		defaultSettings: DEFAULT_SETTINGS,
		resources: {
			list: (ctx, query) => listFolders(endpoints, ctx, query),
			configure: (ctx, resources) => configureFolders(endpoints, ctx, resources),
		},
		...(changeNotifications ? { webhook: onedriveWebhook(endpoints) } : {}),
		sync: (ctx, cursor) => syncOnedrive(ctx, cursor, endpoints),
		readItem: (ctx, externalId) => readOnedriveItem(ctx, externalId, endpoints),
	})
}
