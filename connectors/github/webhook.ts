import type { WebhookSpec } from '../../core/index.ts'
import { octokitFor, splitName, statusOf } from './client.ts'
import type { GithubSettings } from './options.ts'

/** Events that change an issue or pull request, or their comments. */
const ISSUE_EVENTS = ['issues', 'issue_comment', 'pull_request', 'pull_request_review_comment']

/**
 * A hook per configured repository, signed with `X-Hub-Signature-256`: a push to the synced branch syncs, and so do
 * changes to issues, pull requests and their comments when the connection imports them.
 */
export function githubWebhook(apiUrl: string): WebhookSpec<GithubSettings> {
	return {
		routeKeys: (request) => {
			const hook = request.headers.get('x-github-hook-id')
			return hook ? [hook] : []
		},
		maxRouteKeys: 1,
		// GitHub caps payloads at 25 MB (docs.github.com, "Webhook events and payloads", Payload cap); the signature is an
		// HMAC over the raw body, checked before anything parses it.
		maxBodyBytes: 25 * 1024 * 1024,
		async verify(request, secret) {
			const signature = request.headers.get('x-hub-signature-256')
			if (!signature) return false
			try {
				const { verify } = await import('@octokit/webhooks-methods')
				return await verify(secret, request.body, signature)
			} catch {
				return false
			}
		},
		deliveryId: (request) => request.headers.get('x-github-delivery'),
		wantsSync(request, settings) {
			const event = request.headers.get('x-github-event') ?? ''
			if (event !== 'push' && !(settings.includeIssues && ISSUE_EVENTS.includes(event))) return false
			try {
				const payload = JSON.parse(request.body) as { ref?: string; repository?: { full_name?: string } }
				const repository = settings.repositories.find((r) => r.fullName === payload.repository?.full_name)
				if (!repository) return false
				return event !== 'push' || payload.ref === `refs/heads/${repository.defaultBranch}`
			} catch {
				return false
			}
		},
		async subscribe(ctx, { url, secret }) {
			const octokit = await octokitFor(apiUrl, ctx)
			const subscriptions = []
			for (const repository of ctx.settings.repositories) {
				const { data } = await octokit.repos.createWebhook({
					...splitName(repository.fullName),
					name: 'web',
					active: true,
					events: ctx.settings.includeIssues ? ['push', ...ISSUE_EVENTS] : ['push'],
					config: { url, content_type: 'json', secret, insecure_ssl: '0' },
				})
				subscriptions.push({
					externalId: String(data.id),
					routeKey: String(data.id),
					expiresAt: null,
					data: { repository: repository.fullName },
				})
			}
			return subscriptions
		},
		async unsubscribe(ctx, subscription) {
			const octokit = await octokitFor(apiUrl, ctx)
			try {
				await octokit.repos.deleteWebhook({
					...splitName(subscription.data?.repository ?? ''),
					hook_id: Number(subscription.externalId),
				})
			} catch (error) {
				if (statusOf(error) !== 404) throw error
			}
		},
	}
}
