import { ConnectorAuthError, type Subscription, type WebhookSpec } from '../../core/index.ts'
import { messageOf, octokitFor, splitName, statusOf } from './client.ts'
import type { GithubSettings } from './options.ts'
import { guarded, type Repository } from './repo-sync.ts'

/** Events that change an issue or pull request, or their comments. */
const ISSUE_EVENTS = ['issues', 'issue_comment', 'pull_request', 'pull_request_review_comment']
/** Renamed, transferred, deleted, default branch edited: the next sync reads the repository again. */
const REPOSITORY_EVENTS = ['repository']

/**
 * A hook per configured repository, signed with `X-Hub-Signature-256`: a push to the default branch syncs, and so do
 * changes to the repository itself, and to issues, pull requests and their comments when the connection imports them.
 */
export function githubWebhook(apiUrl: string): WebhookSpec<GithubSettings> {
	return {
		routeKeys: (request) => {
			const hook = request.headers.get('x-github-hook-id')
			return hook ? [hook] : []
		},
		maxRouteKeys: 1,
		routedByHeaders: true,
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
		// GitHub pings a hook as soon as it is created, before the subscription is stored: answered, nothing synced.
		handshake: (request) =>
			request.headers.get('x-github-event') === 'ping' ? Response.json({ ok: true }, { status: 200 }) : null,
		// X-GitHub-Delivery is not signed, so a replay could change it: the signature (an HMAC of the body) identifies the
		// delivery instead, and a byte-identical redelivery only asks for a sync already asked for.
		deliveryId: (request) => {
			const signature = request.headers.get('x-hub-signature-256')
			return signature ? `sha256:${signature.toLowerCase().replace(/^sha256=/, '')}` : null
		},
		wantsSync(request, settings) {
			const event = request.headers.get('x-github-event') ?? ''
			const relevant =
				event === 'push' ||
				REPOSITORY_EVENTS.includes(event) ||
				(settings.includeIssues && ISSUE_EVENTS.includes(event))
			if (!relevant) return false
			try {
				const payload = JSON.parse(request.body) as {
					ref?: string
					repository?: { id?: number; full_name?: string; default_branch?: string }
				}
				const { id, full_name: name, default_branch: branch } = payload.repository ?? {}
				// Payloads name the repository as it is now: a renamed or transferred one is known by its id.
				const repository = settings.repositories.find((r) => r.fullName === name || (r.id > 0 && r.id === id))
				if (!repository) return false
				return event !== 'push' || payload.ref === `refs/heads/${branch ?? repository.defaultBranch}`
			} catch {
				return false
			}
		},
		async subscribe(ctx, { url, secret }) {
			const octokit = await octokitFor(apiUrl, ctx, { signal: ctx.signal })
			const events = ['push', ...REPOSITORY_EVENTS, ...(ctx.settings.includeIssues ? ISSUE_EVENTS : [])]
			// GitHub allows one hook per URL on a repository: each connection gets its own URL.
			const hookUrl = new URL(url)
			hookUrl.searchParams.set('connection', ctx.connectionId)
			const config = { url: hookUrl.toString(), content_type: 'json', secret, insecure_ssl: '0' }
			const subscriptions: Subscription[] = []
			const failures: { scope: string; error: string }[] = []
			// One repository at a time: one that refuses (not an administrator) does not stop the others.
			for (const repository of ctx.settings.repositories) {
				try {
					const id = await createOrAdopt(octokit, repository, events, config)
					subscriptions.push({
						externalId: String(id),
						routeKey: String(id),
						expiresAt: null,
						data: { repository: repository.fullName },
					})
				} catch (error) {
					if (error instanceof ConnectorAuthError) throw error
					failures.push({ scope: repository.fullName, error: hookRefusal(error) })
				}
			}
			return { subscriptions, failures }
		},
		async unsubscribe(ctx, subscription) {
			const octokit = await octokitFor(apiUrl, ctx, { signal: ctx.signal })
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

type Octokit = Awaited<ReturnType<typeof octokitFor>>
type HookConfig = { url: string; content_type: string; secret: string; insecure_ssl: string }

/**
 * Creates the repository's hook; when GitHub answers 422 "Hook already exists on this repository" (one left by an
 * earlier attempt at this URL), that hook is adopted: its events and secret are set to this connection's.
 */
async function createOrAdopt(octokit: Octokit, repository: Repository, events: string[], config: HookConfig) {
	const repo = splitName(repository.fullName)
	try {
		const { data } = await guarded(() =>
			octokit.repos.createWebhook({ ...repo, name: 'web', active: true, events, config }),
		)
		return data.id
	} catch (error) {
		if (statusOf(error) !== 422) throw error
		const hooks = await guarded(() => octokit.paginate(octokit.repos.listWebhooks, { ...repo, per_page: 100 }))
		const existing = hooks.find((hook) => hook.config?.url === config.url)
		if (!existing) throw error
		await guarded(() => octokit.repos.updateWebhook({ ...repo, hook_id: existing.id, active: true, events, config }))
		return existing.id
	}
}

function hookRefusal(error: unknown): string {
	const status = statusOf(error)
	if (status === 404) return 'GitHub answered 404: creating a hook needs admin rights on the repository'
	if (status === 403) return `GitHub refused the hook (403): ${messageOf(error)}`
	return status ? `GitHub answered ${status}: ${messageOf(error)}` : (error as Error).message
}
