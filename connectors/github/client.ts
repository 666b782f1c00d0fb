import type { Octokit } from '@octokit/rest'
import type { SyncContext } from '../../core/index.ts'

/** Tries with a token GitHub refused before giving up: processes rotating in turn can each revoke the last one. */
const MAX_TOKEN_ATTEMPTS = 3

/**
 * Octokit is loaded on first use, so a service that never syncs GitHub never loads it. Each request asks the
 * connection for its token (core refreshes one about to expire), so a sync outliving a GitHub App user token
 * (8 hours) goes on with the refreshed one. A token GitHub refuses (401) is refreshed once and the request retried:
 * another process sharing the connection may have rotated it meanwhile, which revokes the one this process holds.
 */
export async function octokitFor(
	apiUrl: string,
	tokens: Pick<SyncContext, 'accessToken' | 'refreshAccessToken'>,
): Promise<Octokit> {
	const { Octokit } = await import('@octokit/rest')
	const octokit = new Octokit({ baseUrl: apiUrl, userAgent: 'memory-service', request: { retries: 0 } })
	octokit.hook.wrap('request', async (request, options) => {
		let token = await tokens.accessToken()
		for (let attempt = 1; ; attempt++) {
			options.headers.authorization = `token ${token}`
			try {
				return await request(options)
			} catch (error) {
				if (statusOf(error) !== 401 || !tokens.refreshAccessToken || attempt === MAX_TOKEN_ATTEMPTS) throw error
				const renewed = await tokens.refreshAccessToken(token)
				if (renewed === token) throw error
				token = renewed
			}
		}
	})
	return octokit
}

export const splitName = (fullName: string) => {
	const [owner, repo] = fullName.split('/') as [string, string]
	return { owner, repo }
}

/** Octokit's errors carry the HTTP status. */
export const statusOf = (error: unknown): number | undefined => (error as { status?: number } | null)?.status
