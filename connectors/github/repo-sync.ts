import type { Octokit } from '@octokit/rest'
import { ConnectorAuthError, type SyncContext } from '../../core/index.ts'
import { statusOf } from './client.ts'
import type { GithubSettings } from './options.ts'

export type Repository = GithubSettings['repositories'][number]

export interface SyncOptions {
	apiUrl: string
	webUrl: string
	maxFileBytes: number
	issueReconcileHours: number
	readConcurrency: number
	timeoutMs: number
	maxRateLimitWaitSeconds: number
	retryBaseMs: number
}

/** What syncing one repository works with. */
export interface RepoSync extends Omit<SyncOptions, 'apiUrl'> {
	octokit: Octokit
	/** The repository as configured (its name is the prefix of its documents' ids). */
	repository: Repository
	/** Its name now (after a rename or transfer) and its default branch now. */
	name: string
	branch: string
	ctx: SyncContext<GithubSettings>
	/** Files that failed to read for a reason that may pass: the synced commit stays until they are read. */
	unread: Set<string>
}

/** Turns a refused grant into the error core marks the connection with. */
export async function guarded<T>(call: () => Promise<T>): Promise<T> {
	try {
		return await call()
	} catch (error) {
		if (statusOf(error) === 401) throw new ConnectorAuthError('GitHub refused the token (revoked or expired)')
		throw error
	}
}
