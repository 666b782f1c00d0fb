import type { WebhookSpec } from '../../core/index.ts'
import { octokitFor, splitName, statusOf } from './client.ts'
import type { GithubSettings } from './options.ts'

/** Push hooks per configured repository, signed with `X-Hub-Signature-256`; a push to the synced branch syncs. */
export function githubWebhook(apiUrl: string): WebhookSpec<GithubSettings> {
	return {
		routeKeys: (request) => {
			const hook = request.headers.get('x-github-hook-id')
			return hook ? [hook] : []
		},
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
			if (request.headers.get('x-github-event') !== 'push') return false
			try {
				const push = JSON.parse(request.body) as { ref?: string; repository?: { full_name?: string } }
				const repository = settings.repositories.find((r) => r.fullName === push.repository?.full_name)
				return repository !== undefined && push.ref === `refs/heads/${repository.defaultBranch}`
			} catch {
				return false
			}
		},
		async subscribe(ctx, { url, secret }) {
			const octokit = await octokitFor(apiUrl, await ctx.accessToken())
			const subscriptions = []
			for (const repository of ctx.settings.repositories) {
				const { data } = await octokit.repos.createWebhook({
					...splitName(repository.fullName),
					name: 'web',
					active: true,
					events: ['push'],
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
			const octokit = await octokitFor(apiUrl, await ctx.accessToken())
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
