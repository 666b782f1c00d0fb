import type { Octokit } from '@octokit/rest'

/**
 * Octokit is loaded on first use, so a service that never syncs GitHub never loads it. Each request asks `token` for
 * the token (core's `ctx.accessToken()` refreshes one about to expire), so a sync outliving a GitHub App user token
 * (8 hours) goes on with the refreshed one instead of failing as revoked.
 */
export async function octokitFor(apiUrl: string, token: () => Promise<string>): Promise<Octokit> {
	const { Octokit } = await import('@octokit/rest')
	const octokit = new Octokit({ baseUrl: apiUrl, userAgent: 'memory-service', request: { retries: 0 } })
	octokit.hook.before('request', async (options) => {
		options.headers.authorization = `token ${await token()}`
	})
	return octokit
}

export const splitName = (fullName: string) => {
	const [owner, repo] = fullName.split('/') as [string, string]
	return { owner, repo }
}

/** Octokit's errors carry the HTTP status. */
export const statusOf = (error: unknown): number | undefined => (error as { status?: number } | null)?.status
