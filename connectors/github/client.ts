import type { Octokit } from '@octokit/rest'

/** Octokit is loaded on first use, so a service that never syncs GitHub never loads it. */
export async function octokitFor(apiUrl: string, token: string): Promise<Octokit> {
	const { Octokit } = await import('@octokit/rest')
	return new Octokit({ auth: token, baseUrl: apiUrl, userAgent: 'memory-service', request: { retries: 0 } })
}

export const splitName = (fullName: string) => {
	const [owner, repo] = fullName.split('/') as [string, string]
	return { owner, repo }
}

/** Octokit's errors carry the HTTP status. */
export const statusOf = (error: unknown): number | undefined => (error as { status?: number } | null)?.status
