import { createLogger, defineConnector, type Logger, PLUGIN_API_VERSION } from '../../core/index.ts'
import { notionClient } from './client.ts'
import type { NotionCursor, NotionOptions } from './options.ts'
import { readNotionPage, type SyncOptions, syncNotion } from './sync.ts'
import { notionWebhook } from './webhook.ts'

export type { NotionCursor, NotionOptions } from './options.ts'

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/**
 * Notion: the pages and databases a user shares with the integration (public OAuth integration), each page and
 * database row a Markdown document, a row's properties its metadata.
 */
export function notion(options: NotionOptions = {}) {
	const apiUrl = trimSlash(options.apiUrl || 'https://api.notion.com')
	const requestsPerSecond = options.requestsPerSecond ?? 3
	let logger: Logger = createLogger()
	const syncOptions: SyncOptions = {
		apiUrl,
		requestsPerSecond,
		reconcileEveryHours: options.reconcileEveryHours ?? 24,
		discoverEveryMinutes: options.discoverEveryMinutes ?? 60,
		refreshEveryHours: options.refreshEveryHours ?? 168,
		maxBlocksPerPage: options.maxBlocksPerPage ?? 10_000,
		...(options.maxRateLimitWaitSeconds !== undefined
			? { maxRateLimitWaitSeconds: options.maxRateLimitWaitSeconds }
			: {}),
	}
	return defineConnector<NotionCursor, Record<string, never>>({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: 'notion',
		provider: 'notion',
		displayName: 'Notion',
		init(ctx) {
			logger = ctx.logger
		},
		auth: {
			type: 'oauth2',
			authorizeUrl: `${apiUrl}/v1/oauth/authorize`,
			// Notion takes the application as HTTP Basic credentials, which is how the token exchange sends them.
			tokenUrl: `${apiUrl}/v1/oauth/token`,
			scopes: [],
			pkce: false,
			authorizeParams: { owner: 'user' },
			env: { clientId: 'NOTION_CLIENT_ID', clientSecret: 'NOTION_CLIENT_SECRET' },
			settingsKey: 'notion',
			async revoke(app, tokens) {
				const client = await notionClient(apiUrl)
				await client.oauth.revoke({
					client_id: app.clientId,
					client_secret: app.clientSecret,
					token: tokens.accessToken,
				})
			},
			async identity(tokens) {
				const client = await notionClient(apiUrl)
				const me = (await client.users.me({ auth: tokens.accessToken } as never)) as {
					bot?: { owner?: { user?: { person?: { email?: string } } }; workspace_name?: string | null }
				}
				return { email: me.bot?.owner?.user?.person?.email ?? me.bot?.workspace_name ?? null }
			},
		},
		schedule: { everyHours: options.syncEveryHours ?? 4 },
		webhook: notionWebhook({
			apiUrl,
			requestsPerSecond,
			verificationTokens: options.webhookVerificationTokens ?? [],
			logger: () => logger,
		}),
		sync: (ctx, cursor) => syncNotion(ctx, cursor, syncOptions),
		readItem: (ctx, externalId) => readNotionPage(ctx, externalId, syncOptions),
	})
}
