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
}

/** What syncing one repository works with. */
export interface RepoSync extends Omit<SyncOptions, 'apiUrl'> {
	octokit: Octokit
	repository: Repository
	ctx: SyncContext<GithubSettings>
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
