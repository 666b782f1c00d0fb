import type { Octokit } from '@octokit/rest'
import { ConnectorAuthError, RateLimitedError, type SyncContext, type SyncEvent } from '../../core/index.ts'
import { messageOf, octokitFor, splitName, statusOf } from './client.ts'
import { externalId, readFile } from './file.ts'
import { inOrder } from './in-order.ts'
import { syncIssues } from './issues.ts'
import { type GithubCursor, type GithubSettings, isWanted } from './options.ts'
import { guarded, type RepoSync, type Repository, type SyncOptions } from './repo-sync.ts'
import { isSymlink, listTree, type TreeFile } from './tree.ts'

/** GitHub's compare lists at most 300 files: at that many, the full tree is listed instead. */
const COMPARE_FILE_CAP = 300
/** Syncs in a row a repository must answer 404 before its documents are removed. */
const GONE_AFTER = 2

type Event = SyncEvent<GithubCursor>

/**
 * Each configured repository's default branch (all files first, then the commits since the last synced one), then,
 * when chosen, its issues and pull requests. A repository GitHub refuses (404, 403, 451) or cannot compare is that
 * repository's failure: the others go on.
 */
export async function* syncGithub(
	ctx: SyncContext<GithubSettings>,
	cursor: GithubCursor | null,
	options: SyncOptions,
): AsyncGenerator<Event> {
	const octokit = await octokitFor(options.apiUrl, ctx, {
		id: ctx.connectionId,
		timeoutMs: options.timeoutMs,
		maxRateLimitWaitSeconds: options.maxRateLimitWaitSeconds,
		retryBaseMs: options.retryBaseMs,
		signal: ctx.signal,
	})
	const next: GithubCursor = { ...(cursor ?? {}) }
	for (const repository of ctx.settings.repositories) {
		try {
			yield* syncRepository(ctx, octokit, repository, next, options)
		} catch (error) {
			if (error instanceof ConnectorAuthError || error instanceof RateLimitedError || ctx.signal.aborted) throw error
			// Recorded on the run; that repository's deletions wait; the connection's other repositories go on.
			yield { type: 'scope-failed', scope: repository.fullName, error: describe(error) }
		}
	}
}

async function* syncRepository(
	ctx: SyncContext<GithubSettings>,
	octokit: Octokit,
	repository: Repository,
	next: GithubCursor,
	options: SyncOptions,
): AsyncGenerator<Event> {
	const current = await currentOf(octokit, repository)
	const goneKey = `gone:${repository.fullName}`
	if (current === null) {
		yield* missing(repository, next, goneKey)
		return
	}
	if (next[goneKey]) {
		delete next[goneKey]
		yield { type: 'checkpoint', cursor: { ...next } }
	}
	const run: RepoSync = { ...options, octokit, repository, ...current, ctx, unread: new Set() }
	const tagBefore = next[branchTagKey(repository.fullName)]
	const head = await headOf(run, next)
	if (head === null) {
		yield { type: 'scope-failed', scope: repository.fullName, error: `branch ${run.branch} not found` }
		return
	}
	const synced = next[repository.fullName]
	if (synced !== head) {
		if (synced) yield* incremental(run, synced, head)
		else yield* full(run, head)
		// A file that failed for a reason that may pass is read again next time, from the same synced commit.
		if (run.unread.size === 0) {
			next[repository.fullName] = head
			yield { type: 'checkpoint', cursor: { ...next } }
		}
	} else if (next[branchTagKey(repository.fullName)] !== tagBefore) {
		// Nothing new, but a new tag to ask with next time.
		yield { type: 'checkpoint', cursor: { ...next } }
	}
	if (ctx.settings.includeIssues) yield* syncIssues(run, next)
	else if (forgetIssues(next, repository)) yield { type: 'checkpoint', cursor: { ...next } }
}

/**
 * The repository's name and default branch as they are now: renames and transfers answer through GitHub's
 * redirect, and the default branch may have changed since it was configured. Null when GitHub says it is not there.
 */
async function currentOf(octokit: Octokit, repository: Repository): Promise<{ name: string; branch: string } | null> {
	try {
		const { data } = await guarded(() => octokit.repos.get(splitName(repository.fullName)))
		return { name: data.full_name, branch: data.default_branch }
	} catch (error) {
		if (statusOf(error) === 404) return null
		throw error
	}
}

/**
 * A repository GitHub answers 404 for: deleted, or no longer visible to the token. Its documents stay the first
 * time (a passing answer must not delete), and go once it is missing `GONE_AFTER` syncs in a row.
 */
async function* missing(repository: Repository, next: GithubCursor, goneKey: string): AsyncGenerator<Event> {
	const times = Number(next[goneKey] ?? 0) + 1
	if (times < GONE_AFTER) {
		next[goneKey] = String(times)
		yield {
			type: 'scope-failed',
			scope: repository.fullName,
			error:
				'repository not found (deleted, or not visible to this account); its documents are kept until it is missing at the next sync too',
		}
		yield { type: 'checkpoint', cursor: { ...next } }
		return
	}
	yield {
		type: 'failure',
		externalId: null,
		error: `${repository.fullName}: repository not found again; its documents are removed`,
	}
	for (const prefix of [`${repository.fullName}:`, `${repository.fullName}#`]) {
		yield { type: 'present', prefix, scope: repository.fullName, externalIds: [], complete: true }
	}
	for (const key of [
		repository.fullName,
		goneKey,
		`issues:${repository.fullName}`,
		`issuesListed:${repository.fullName}`,
		branchTagKey(repository.fullName),
		`issuesTag:${repository.fullName}`,
	]) {
		delete next[key]
	}
	yield { type: 'checkpoint', cursor: { ...next } }
}

/** Issues switched off: the next time they are switched on, they are listed in full again. */
function forgetIssues(cursor: GithubCursor, repository: Repository): boolean {
	const keys = [
		`issues:${repository.fullName}`,
		`issuesListed:${repository.fullName}`,
		`issuesTag:${repository.fullName}`,
	].filter((key) => key in cursor)
	for (const key of keys) delete cursor[key]
	return keys.length > 0
}

/**
 * The branch's head commit, asked conditionally with the ETag of the last answer: an unchanged branch answers 304,
 * which GitHub does not count against the rate limit ("Best practices for using the REST API").
 */
async function headOf(run: RepoSync, next: GithubCursor): Promise<string | null> {
	const key = branchTagKey(run.repository.fullName)
	const last = branchTagOf(next[key])
	const known = last && last.branch === run.branch && last.name === run.name ? last : null
	try {
		const { data, headers } = await guarded(() =>
			run.octokit.repos.getBranch({
				...splitName(run.name),
				branch: run.branch,
				...(known ? { headers: { 'if-none-match': known.etag } } : {}),
			}),
		)
		if (headers.etag) {
			next[key] = JSON.stringify({ etag: headers.etag, sha: data.commit.sha, branch: run.branch, name: run.name })
		} else delete next[key]
		return data.commit.sha
	} catch (error) {
		if (statusOf(error) === 304 && known) return known.sha
		if (statusOf(error) === 404) return null
		throw error
	}
}

/** Where the cursor keeps the ETag of the branch's last answer, with what it answered. */
const branchTagKey = (fullName: string) => `branchTag:${fullName}`

function branchTagOf(value: string | undefined): { etag: string; sha: string; branch: string; name: string } | null {
	try {
		const parsed = JSON.parse(value ?? 'null')
		return typeof parsed?.etag === 'string' && typeof parsed.sha === 'string' ? parsed : null
	} catch {
		return null
	}
}

const wanted = (run: RepoSync, file: TreeFile) => !isSymlink(file) && isWanted(file.path, run.ctx.settings)

async function* full(run: RepoSync, head: string): AsyncGenerator<Event> {
	const listing = await listTree(run, head)
	const files = [...listing.files.values()].filter((file) => wanted(run, file))
	yield* inOrder(files, run.readConcurrency, (file) => readFile(run, file))
	if (!listing.complete) {
		const error = 'GitHub cut the tree listing short; nothing is removed until it can be listed whole'
		yield { type: 'scope-failed', scope: run.repository.fullName, error }
		return
	}
	// Whatever was imported before and is no longer in the tree was removed meanwhile.
	yield {
		type: 'present',
		prefix: `${run.repository.fullName}:`,
		scope: run.repository.fullName,
		externalIds: files.map((file) => externalId(run.repository, file.path)),
		complete: true,
	}
}

type Comparison = Awaited<ReturnType<Octokit['repos']['compareCommitsWithBasehead']>>['data']

/**
 * The files changed since the synced commit, when the head descends from it. A force push or reset (`behind` or
 * `diverged`: the synced commit is no longer in the branch's history), a comparison GitHub cannot make (404 for a
 * commit gone, 406 diff too large, 500 diff taking too long) or one at its 300-file cap: the whole tree instead.
 */
async function* incremental(run: RepoSync, base: string, head: string): AsyncGenerator<Event> {
	let compared: Comparison
	try {
		compared = (
			await guarded(() =>
				run.octokit.repos.compareCommitsWithBasehead({
					...splitName(run.name),
					basehead: `${base}...${head}`,
					request: { retries: 0 },
				}),
			)
		).data
	} catch (error) {
		if (error instanceof ConnectorAuthError || error instanceof RateLimitedError) throw error
		return yield* full(run, head)
	}
	const files = compared.files ?? []
	const descends = compared.status === 'ahead' && compared.merge_base_commit?.sha === base
	if (!descends || files.length >= COMPARE_FILE_CAP) return yield* full(run, head)
	// Sizes and modes come from the head's tree, so nothing over the limit is downloaded.
	const listing = await listTree(run, head)
	const events: Event[] = []
	const reads: TreeFile[] = []
	for (const file of files) {
		if (file.status === 'renamed' && file.previous_filename) {
			events.push({ type: 'delete', externalId: externalId(run.repository, file.previous_filename) })
		}
		const entry = listing.files.get(file.filename)
		if (file.status === 'removed' || (!entry && listing.complete)) {
			events.push({ type: 'delete', externalId: externalId(run.repository, file.filename) })
		} else if (!entry) {
			run.unread.add(file.filename)
		} else if (isSymlink(entry)) {
			events.push({ type: 'delete', externalId: externalId(run.repository, file.filename) })
		} else if (isWanted(file.filename, run.ctx.settings)) reads.push(entry)
	}
	yield* events
	yield* inOrder(reads, run.readConcurrency, (file) => readFile(run, file))
}

function describe(error: unknown): string {
	const status = statusOf(error)
	if (status === 403) return `GitHub refused access (403): ${messageOf(error)}`
	if (status === 451) return `unavailable for legal reasons (451): ${messageOf(error)}`
	return status ? `GitHub answered ${status}: ${messageOf(error)}` : (error as Error).message
}
