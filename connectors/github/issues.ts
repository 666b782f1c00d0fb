import { ConnectorAuthError, RateLimitedError, type SyncEvent } from '../../core/index.ts'
import { splitName, statusOf } from './client.ts'
import { inOrder } from './in-order.ts'
import { type CommentData, type IssueData, issueDocument, issueExternalId } from './issue-document.ts'
import type { GithubCursor } from './options.ts'
import { guarded, type RepoSync } from './repo-sync.ts'

type Event = SyncEvent<GithubCursor>

const PAGE = 100

/** GitHub's `since` takes whole seconds. */
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/**
 * A repository's issues and pull requests (GitHub lists both as issues). After the first full listing, each sync
 * lists only those updated since the cursor; a full listing every `issueReconcileHours` finds the deleted and
 * transferred ones, which no updated-since listing shows. Closed ones stay, with their state in the metadata.
 */
export async function* syncIssues(run: RepoSync, cursor: GithubCursor): AsyncGenerator<Event> {
	const { fullName } = run.repository
	const keys = { since: `issues:${fullName}`, listed: `issuesListed:${fullName}` }
	try {
		if (cursor[keys.since]) yield* updatedSince(run, cursor, keys.since)
		const listed = cursor[keys.listed]
		const due = !listed || Date.parse(listed) + run.issueReconcileHours * 3_600_000 <= Date.now()
		if (!cursor[keys.since] || due) yield* listAll(run, cursor, keys)
	} catch (error) {
		if (error instanceof ConnectorAuthError) throw error
		const status = statusOf(error)
		// 410: the repository has issues switched off.
		if (status !== 404 && status !== 410) throw error
		yield { type: 'failure', externalId: null, error: `${fullName}: its issues cannot be listed (${status})` }
	}
}

/**
 * Issues updated since the cursor, oldest update first. Each page starts a second before the last update seen (keyset
 * paging), so an issue updated meanwhile, which moves to the end of the order, cannot shift another out of view.
 */
async function* updatedSince(run: RepoSync, cursor: GithubCursor, key: string): AsyncGenerator<Event> {
	const from = cursor[key]!
	let since = from
	let page = 1
	// The first page is asked for with the ETag of the last sync's, when it listed from the same time: a 304 says
	// nothing was updated since, and GitHub does not count it against the rate limit.
	const tagKey = `issuesTag:${run.repository.fullName}`
	const last = tagOf(cursor[tagKey])
	const known = last?.since === since ? last.etag : null
	let firstTag: string | null = null
	for (;;) {
		const first = page === 1 && since === from
		let answer: Awaited<ReturnType<RepoSync['octokit']['issues']['listForRepo']>>
		try {
			answer = await guarded(() =>
				run.octokit.issues.listForRepo({
					...splitName(run.name),
					state: 'all',
					sort: 'updated',
					direction: 'asc',
					since,
					per_page: PAGE,
					page,
					...(first && known ? { headers: { 'if-none-match': known } } : {}),
				}),
			)
		} catch (error) {
			if (first && known && statusOf(error) === 304) return
			throw error
		}
		if (first) firstTag = answer.headers.etag ?? null
		const issues = answer.data as IssueData[]
		yield* inOrder(issues, run.readConcurrency, (issue) => readIssue(run, issue))
		const last = issues.at(-1)
		const next = last ? isoSeconds(Date.parse(last.updated_at) - 1000) : since
		if (Date.parse(next) > Date.parse(cursor[key]!)) {
			cursor[key] = next
			yield { type: 'checkpoint', cursor: { ...cursor } }
		}
		if (issues.length < PAGE) {
			// Kept only when the listing ends where it started: the next sync asks for that same first page.
			if (firstTag && cursor[key] === from) cursor[tagKey] = JSON.stringify({ etag: firstTag, since })
			else delete cursor[tagKey]
			yield { type: 'checkpoint', cursor: { ...cursor } }
			return
		}
		// A whole page updated within one second cannot move the time on: page on at the same time instead.
		if (Date.parse(next) > Date.parse(since)) [since, page] = [next, 1]
		else page++
	}
}

/**
 * Every issue, oldest first (creation order does not change while the listing pages on), then the set that exists
 * now, so that core deletes the imported ones no longer listed.
 */
async function* listAll(
	run: RepoSync,
	cursor: GithubCursor,
	keys: { since: string; listed: string },
): AsyncGenerator<Event> {
	const { fullName } = run.repository
	const pages = run.octokit.paginate
		.iterator(run.octokit.issues.listForRepo, {
			...splitName(run.name),
			state: 'all',
			sort: 'created',
			direction: 'asc',
			per_page: PAGE,
		})
		[Symbol.asyncIterator]()
	const present: string[] = []
	let startedAt: number | null = null
	for (;;) {
		const step = await guarded(() => pages.next())
		if (step.done) break
		// GitHub's own clock: whatever changes after the listing began is updated after this.
		startedAt ??= Date.parse(step.value.headers.date ?? '') || Date.now() - 300_000
		const issues = step.value.data as IssueData[]
		for (const issue of issues) present.push(issueExternalId(fullName, issue.number))
		yield* inOrder(issues, run.readConcurrency, (issue) => readIssue(run, issue))
	}
	yield { type: 'present', prefix: `${fullName}#`, scope: `${fullName} issues`, externalIds: present, complete: true }
	cursor[keys.since] ??= isoSeconds((startedAt ?? Date.now()) - 1000)
	cursor[keys.listed] = new Date().toISOString()
	yield { type: 'checkpoint', cursor: { ...cursor } }
}

/** An issue as an event: unchanged since imported (its `updated_at`), or read with its comments. */
async function readIssue(run: RepoSync, issue: IssueData): Promise<Event> {
	const { fullName } = run.repository
	const id = issueExternalId(fullName, issue.number)
	if (await run.ctx.hasVersion(id, issue.updated_at)) return { type: 'unchanged', externalId: id }
	const { octokit } = run
	try {
		const comments =
			issue.comments === 0
				? []
				: await guarded(() =>
						octokit.paginate(octokit.issues.listComments, {
							...splitName(run.name),
							issue_number: issue.number,
							per_page: PAGE,
						}),
					)
		const reviewComments = issue.pull_request
			? await guarded(() =>
					octokit.paginate(octokit.pulls.listReviewComments, {
						...splitName(run.name),
						pull_number: issue.number,
						per_page: PAGE,
					}),
				)
			: []
		const all = [...comments, ...reviewComments] as CommentData[]
		return { type: 'upsert', document: issueDocument(run.repository, issue, all, run.webUrl) }
	} catch (error) {
		if (error instanceof ConnectorAuthError || error instanceof RateLimitedError) throw error
		return { type: 'failure', externalId: id, error: `could not read #${issue.number}: ${(error as Error).message}` }
	}
}

function tagOf(value: string | undefined): { etag: string; since: string } | null {
	try {
		const parsed = JSON.parse(value ?? 'null')
		return typeof parsed?.etag === 'string' && typeof parsed.since === 'string' ? parsed : null
	} catch {
		return null
	}
}
