import type { Octokit } from '@octokit/rest'
import { ConnectorAuthError, type ExternalDocument, type SyncContext, type SyncEvent } from '../../core/index.ts'
import { octokitFor, splitName, statusOf } from './client.ts'
import { type GithubCursor, type GithubSettings, isWanted } from './options.ts'

/** GitHub's compare lists at most 300 files: at that many, the full tree is listed instead. */
const COMPARE_FILE_CAP = 300

type Repository = GithubSettings['repositories'][number]
type Event = SyncEvent<GithubCursor>

interface RepoSync {
	octokit: Octokit
	repository: Repository
	ctx: SyncContext<GithubSettings>
	webUrl: string
	maxFileBytes: number
}

/** Each configured repository's default branch: all files first, then the commits since the last synced one. */
export async function* syncGithub(
	ctx: SyncContext<GithubSettings>,
	cursor: GithubCursor | null,
	options: { apiUrl: string; webUrl: string; maxFileBytes: number },
): AsyncGenerator<Event> {
	const octokit = await octokitFor(options.apiUrl, await ctx.accessToken())
	const next: GithubCursor = { ...(cursor ?? {}) }
	for (const repository of ctx.settings.repositories) {
		const run: RepoSync = { octokit, repository, ctx, webUrl: options.webUrl, maxFileBytes: options.maxFileBytes }
		const head = await guarded(() => headOf(run))
		if (head === null) {
			yield { type: 'failure', externalId: null, error: `${repository.fullName}: repository or branch not found` }
			continue
		}
		const synced = next[repository.fullName]
		if (synced === head) continue
		if (synced) yield* incremental(run, synced, head)
		else yield* full(run, head)
		next[repository.fullName] = head
		yield { type: 'checkpoint', cursor: { ...next } }
	}
}

/** Turns a refused grant into the error core marks the connection with. */
async function guarded<T>(call: () => Promise<T>): Promise<T> {
	try {
		return await call()
	} catch (error) {
		if (statusOf(error) === 401) throw new ConnectorAuthError('GitHub refused the token (revoked or expired)')
		throw error
	}
}

async function headOf({ octokit, repository }: RepoSync): Promise<string | null> {
	try {
		const { data } = await octokit.repos.getBranch({
			...splitName(repository.fullName),
			branch: repository.defaultBranch,
		})
		return data.commit.sha
	} catch (error) {
		if (statusOf(error) === 404) return null
		throw error
	}
}

async function* full(run: RepoSync, head: string): AsyncGenerator<Event> {
	const { data } = await guarded(() =>
		run.octokit.git.getTree({ ...splitName(run.repository.fullName), tree_sha: head, recursive: 'true' }),
	)
	const files = data.tree.filter(
		(entry) => entry.type === 'blob' && entry.path && isWanted(entry.path, run.ctx.settings),
	)
	for (const file of files) yield* importFile(run, file.path!, file.sha!, file.size ?? 0)
	// Whatever was imported before and is no longer in the tree was removed meanwhile.
	yield {
		type: 'present',
		prefix: `${run.repository.fullName}:`,
		externalIds: files.map((file) => externalId(run.repository, file.path!)),
	}
}

async function* incremental(run: RepoSync, base: string, head: string): AsyncGenerator<Event> {
	let compared: Awaited<ReturnType<Octokit['repos']['compareCommitsWithBasehead']>>['data']
	try {
		compared = (
			await guarded(() =>
				run.octokit.repos.compareCommitsWithBasehead({
					...splitName(run.repository.fullName),
					basehead: `${base}...${head}`,
				}),
			)
		).data
	} catch (error) {
		// The synced commit is gone (a force push): list everything again.
		if (statusOf(error) === 404) return yield* full(run, head)
		throw error
	}
	const files = compared.files ?? []
	if (files.length >= COMPARE_FILE_CAP) return yield* full(run, head)
	for (const file of files) {
		if (file.status === 'renamed' && file.previous_filename) {
			yield { type: 'delete', externalId: externalId(run.repository, file.previous_filename) }
		}
		if (file.status === 'removed') {
			yield { type: 'delete', externalId: externalId(run.repository, file.filename) }
			continue
		}
		if (!isWanted(file.filename, run.ctx.settings)) continue
		yield* importFile(run, file.filename, file.sha ?? '', null)
	}
}

async function* importFile(run: RepoSync, path: string, sha: string, size: number | null): AsyncGenerator<Event> {
	const id = externalId(run.repository, path)
	if (sha && (await run.ctx.hasVersion(id, sha))) {
		yield { type: 'unchanged', externalId: id }
		return
	}
	if (size !== null && size > run.maxFileBytes) {
		yield { type: 'failure', externalId: id, error: `GITHUB_FILE_TOO_LARGE: ${size} bytes (limit ${run.maxFileBytes})` }
		return
	}
	try {
		const { data } = await guarded(() =>
			run.octokit.git.getBlob({ ...splitName(run.repository.fullName), file_sha: sha }),
		)
		if ((data.size ?? 0) > run.maxFileBytes) {
			yield {
				type: 'failure',
				externalId: id,
				error: `GITHUB_FILE_TOO_LARGE: ${data.size} bytes  (limit ${run.maxFileBytes})`,
			}
			return
		}
		const content = data.encoding === 'base64' ? Buffer.from(data.content, 'base64').toString('utf8') : data.content
		yield { type: 'upsert', document: documentOf(run, path, sha, content) }
	} catch (error) {
		if (error instanceof ConnectorAuthError) throw error
		yield { type: 'failure', externalId: id, error: `could not read ${path}: ${(error as Error).message}` }
	}
}

function documentOf(run: RepoSync, path: string, sha: string, content: string): ExternalDocument {
	const { fullName, defaultBranch } = run.repository
	return {
		externalId: externalId(run.repository, path),
		version: sha,
		title: path.slice(path.lastIndexOf('/') + 1),
		content,
		url: `${run.webUrl}/${fullName}/blob/${encodeURIComponent(defaultBranch)}/${path}`,
		metadata: { repository: fullName, path, branch: defaultBranch, sha },
		sourceType: 'github_markdown',
	}
}

export const externalId = (repository: Pick<Repository, 'fullName'>, path: string) => `${repository.fullName}:${path}`
