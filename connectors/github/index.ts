import { defineConnector, PLUGIN_API_VERSION, statusOf } from '../../core/index.ts'
import { octokitFor } from './client.ts'
import { DEFAULT_SETTINGS, type GithubCursor, type GithubOptions, type GithubSettings } from './options.ts'
import { configureRepositories, listRepositories } from './resources.ts'
import { syncGithub } from './sync.ts'
import { githubWebhook } from './webhook.ts'

export type { GithubOptions, GithubSettings } from './options.ts'

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/**
 * GitHub: Markdown and documentation files (code as an option) of chosen repositories' default branches, and as an
 * option their issues and pull requests with comments.
 */
export function github(options: GithubOptions = {}) {
	const apiUrl = trimSlash(options.apiUrl || 'https://api.github.com')
	const webUrl = trimSlash(options.webUrl || 'https://github.com')
	const syncOptions = {
		apiUrl,
		webUrl,
		maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
		issueReconcileHours: options.issueReconcileHours ?? 24,
		readConcurrency: options.readConcurrency ?? 2,
		timeoutMs: options.timeoutMs ?? 30_000,
		maxRateLimitWaitSeconds: options.maxRateLimitWaitSeconds ?? 60,
		retryBaseMs: options.retryBaseMs ?? 1000,
	}
	return defineConnector<GithubCursor, GithubSettings>({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: 'github',
		provider: 'github',
		displayName: 'GitHub',
		auth: {
			type: 'oauth2',
			authorizeUrl: `${webUrl}/login/oauth/authorize`,
			tokenUrl: `${webUrl}/login/oauth/access_token`,
			scopes: ['repo', 'user:email', 'admin:repo_hook'],
			pkce: true,
			env: { clientId: 'GITHUB_CLIENT_ID', clientSecret: 'GITHUB_CLIENT_SECRET' },
			settingsKey: 'github',
			// GitHub skips its consent page for a user who already authorized the application; the account picker is always
			// shown with prompt=select_account (GitHub changelog 2024-06-07, "Account picker updates for OAuth").
			authorizeParams: { prompt: 'select_account' },
			// GitHub's "Delete an app authorization" (DELETE /applications/{client_id}/grant), authenticated as the
			// application: the user's grant with every token of it, a GitHub App's refresh token too, where "Delete an app
			// token" revoked the one access token. Core revokes only when no other connection shares the grant.
			async revoke(app, tokens) {
				const { Octokit } = await import('@octokit/rest')
				try {
					await new Octokit({ baseUrl: apiUrl, userAgent: 'memory-service' }).rest.apps.deleteAuthorization({
						client_id: app.clientId,
						access_token: tokens.accessToken,
						headers: { authorization: `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}` },
					})
				} catch (error) {
					// Not found: the grant is gone already (the user revoked it on GitHub).
					if (statusOf(error) !== 404) throw error
				}
			},
			async identity(tokens) {
				const octokit = await octokitFor(apiUrl, { accessToken: async () => tokens.accessToken })
				const { data } = await octokit.users.getAuthenticated()
				if (data.email) return { email: data.email }
				// No public email: the primary verified one, which the `user:email` scope lets the application read.
				try {
					const { data: emails } = await octokit.users.listEmailsForAuthenticatedUser()
					const primary = emails.find((entry) => entry.primary && entry.verified)
					if (primary) return { email: primary.email }
				} catch {
					// A token without the scope (an older authorization): the login names the account instead.
				}
				return { email: data.login ?? null }
			},
		},
		schedule: { everyHours: 4 },
		defaultSettings: DEFAULT_SETTINGS,
		resources: {
			list: (ctx, query) => listRepositories(apiUrl, ctx, query),
			configure: (ctx, resources) => configureRepositories(ctx.settings, resources),
		},
		webhook: githubWebhook(apiUrl),
		sync: (ctx, cursor) => syncGithub(ctx, cursor, syncOptions),
	})
}
