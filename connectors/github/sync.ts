import type { Octokit } from '@octokit/rest'
import { ConnectorAuthError, type ExternalDocument, type SyncContext, type SyncEvent } from '../../core/index.ts'
import { octokitFor, splitName, statusOf } from './client.ts'
import { inOrder } from './in-order.ts'
import { syncIssues } from './issues.ts'
import { type GithubCursor, type GithubSettings, isWanted } from './options.ts'
import { guarded, type RepoSync, type Repository, type SyncOptions } from './repo-sync.ts'

/** GitHub's compare lists at most 300 files: at that many, the full tree is listed instead. */
const COMPARE_FILE_CAP = 300

type Event = SyncEvent<GithubCursor>

/**
 * Each configured repository's default branch (all files first, then the commits since the last synced one), then,
 * when chosen, its issues and pull requests.
 */
export async function* syncGithub(
	ctx: SyncContext<GithubSettings>,
	cursor: GithubCursor | null,
	options: SyncOptions,
): AsyncGenerator<Event> {
	const octokit = await octokitFor(options.apiUrl, ctx)
	const next: GithubCursor = { ...(cursor ?? {}) }
	for (const repository of ctx.settings.repositories) {
		const run: RepoSync = { ...options, octokit, repository, ctx }
		const head = await guarded(() => headOf(run))
		if (head === null) {
			yield { type: 'failure', externalId: null, error: `${repository.fullName}: repository or branch not found` }
			continue
		}
		const synced = next[repository.fullName]
		if (synced !== head) {
			if (synced) yield* incremental(run, synced, head)
			else yield* full(run, head)
			next[repository.fullName] = head
			yield { type: 'checkpoint', cursor: { ...next } }
		}
		if (ctx.settings.includeIssues) yield* syncIssues(run, next)
		else if (forgetIssues(next, repository)) yield { type: 'checkpoint', cursor: { ...next } }
	}
}

/** Issues switched off: the next time they are switched on, they are listed in full again. */
function forgetIssues(cursor: GithubCursor, repository: Repository): boolean {
	const keys = [`issues:${repository.fullName}`, `issuesListed:${repository.fullName}`].filter((key) => key in cursor)
	for (const key of keys) delete cursor[key]
	return keys.length > 0
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
	yield* inOrder(files, run.readConcurrency, (file) => readFile(run, file.path!, file.sha!, file.size ?? 0))
	// Whatever was imported before and is no longer in the tree was removed meanwhile.
	yield {
		type: 'present',
		prefix: `${run.repository.fullName}:`,
		externalIds: files.map((file) => externalId(run.repository, file.path!)),
		complete: true,
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
	const changes = async (file: (typeof files)[number]): Promise<Event[]> => {
		const events: Event[] = []
		if (file.status === 'renamed' && file.previous_filename) {
			events.push({ type: 'delete', externalId: externalId(run.repository, file.previous_filename) })
		}
		if (file.status === 'removed')
			events.push({ type: 'delete', externalId: externalId(run.repository, file.filename) })
		else if (isWanted(file.filename, run.ctx.settings))
			events.push(await readFile(run, file.filename, file.sha ?? '', null))
		return events
	}
	for await (const events of inOrder(files, run.readConcurrency, changes)) yield* events
}

/** One file as an event: unchanged (same blob), too large, read, or a failure to read it. */
async function readFile(run: RepoSync, path: string, sha: string, size: number | null): Promise<Event> {
	const id = externalId(run.repository, path)
	if (sha && (await run.ctx.hasVersion(id, sha))) return { type: 'unchanged', externalId: id }
	const tooLarge = (bytes: number): Event => ({
		type: 'failure',
		externalId: id,
		error: `GITHUB_FILE_TOO_LARGE: ${bytes} bytes (limit ${run.maxFileBytes})`,
	})
	if (size !== null && size > run.maxFileBytes) return tooLarge(size)
	try {
		const { data } = await guarded(() =>
			run.octokit.git.getBlob({ ...splitName(run.repository.fullName), file_sha: sha }),
		)
		if ((data.size ?? 0) > run.maxFileBytes) return tooLarge(data.size ?? 0)
		const content = data.encoding === 'base64' ? Buffer.from(data.content, 'base64').toString('utf8') : data.content
		return { type: 'upsert', document: documentOf(run, path, sha, content) }
	} catch (error) {
		if (error instanceof ConnectorAuthError) throw error
		return { type: 'failure', externalId: id, error: `could not read ${path}: ${(error as Error).message}` }
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
