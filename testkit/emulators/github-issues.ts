/**
 * The issues and pull requests of the GitHub emulator's repositories: the listing (state, sort, direction, since,
 * Link-header paging), conversation comments and pull request review comments. Its clock moves one second per change
 * (GitHub's times have whole seconds) and answers carry it as their `date`, so updated-since listings are exact.
 */

interface Comment {
	id: number
	user: { login: string }
	body: string
	created_at: string
	updated_at: string
	/** Review comments: the file commented on. */
	path?: string
}

interface Issue {
	number: number
	title: string
	body: string
	state: 'open' | 'closed'
	labels: string[]
	user: string
	created_at: string
	updated_at: string
	pull: boolean
	merged_at: string | null
	comments: Comment[]
	reviewComments: Comment[]
}

export interface NewIssue {
	title: string
	body?: string
	labels?: string[]
	author?: string
	/** A pull request rather than an issue. */
	pull?: boolean
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

export function issueTracker(webUrl: () => string) {
	let clock = Math.floor(Date.now() / 1000) * 1000
	let nextCommentId = 1
	const repos = new Map<string, { next: number; issues: Map<number, Issue> }>()
	const tick = () => {
		clock += 1000
		return iso(clock)
	}
	const repoOf = (fullName: string) => {
		const repo = repos.get(fullName) ?? { next: 1, issues: new Map<number, Issue>() }
		repos.set(fullName, repo)
		return repo
	}
	const issueOf = (fullName: string, number: number) => {
		const issue = repoOf(fullName).issues.get(number)
		if (!issue) throw new Error(`${fullName}#${number} does not exist`)
		return issue
	}
	const add = (fullName: string, input: NewIssue & { created_at?: string }) => {
		const repo = repoOf(fullName)
		const now = tick()
		const issue: Issue = {
			number: repo.next++,
			title: input.title,
			body: input.body ?? '',
			state: 'open',
			labels: input.labels ?? [],
			user: input.author ?? 'octo',
			created_at: input.created_at ?? now,
			updated_at: now,
			pull: input.pull ?? false,
			merged_at: null,
			comments: [],
			reviewComments: [],
		}
		repo.issues.set(issue.number, issue)
		return issue
	}

	function view(fullName: string, issue: Issue) {
		const kind = issue.pull ? 'pull' : 'issues'
		return {
			number: issue.number,
			title: issue.title,
			body: issue.body,
			state: issue.state,
			html_url: `${webUrl()}/${fullName}/${kind}/${issue.number}`,
			user: { login: issue.user },
			labels: issue.labels.map((name) => ({ name })),
			comments: issue.comments.length,
			created_at: issue.created_at,
			updated_at: issue.updated_at,
			...(issue.pull
				? { pull_request: { url: `${webUrl()}/${fullName}/pull/${issue.number}`, merged_at: issue.merged_at } }
				: {}),
		}
	}

	/**
	 * One page of `items` as GitHub pages (per_page, page, and a Link header to the next), with an ETag of the page: a
	 * request whose If-None-Match matches it answers 304 ("Best practices for using the REST API": conditional requests).
	 */
	function paged(url: URL, items: unknown[], ifNoneMatch: string | null = null): Response {
		const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30))
		const page = Number(url.searchParams.get('page') ?? 1)
		const headers: Record<string, string> = { 'content-type': 'application/json', date: new Date(clock).toUTCString() }
		if (page * perPage < items.length) {
			const next = new URL(url)
			next.searchParams.set('page', String(page + 1))
			headers.link = `<${next}>; rel="next"`
		}
		const body = JSON.stringify(items.slice((page - 1) * perPage, page * perPage))
		headers.etag = `W/"${Bun.hash(`${body}${headers.link ?? ''}`).toString(16)}"`
		if (ifNoneMatch === headers.etag) {
			notModified++
			return new Response(null, { status: 304, headers: { etag: headers.etag } })
		}
		return new Response(body, { headers })
	}

	let notModified = 0
	return {
		/** Listings answered 304 so far. */
		notModified: () => notModified,
		/** The REST answer for `rest` (the path after /repos/{owner}/{repo}), or null when it is not an issues path. */
		route(
			fullName: string,
			method: string,
			rest: string[],
			url: URL,
			ifNoneMatch: string | null = null,
		): Response | null {
			if (method !== 'GET') return null
			const issues = repoOf(fullName).issues
			if (rest[0] === 'issues' && rest.length === 1) {
				const state = url.searchParams.get('state') ?? 'open'
				const since = url.searchParams.get('since')
				const sort = url.searchParams.get('sort') ?? 'created'
				const direction = url.searchParams.get('direction') ?? 'desc'
				const listed = [...issues.values()]
					.filter((issue) => state === 'all' || issue.state === state)
					.filter((issue) => !since || Date.parse(issue.updated_at) >= Date.parse(since))
					.sort((a, b) => {
						const order = sort === 'updated' ? a.updated_at.localeCompare(b.updated_at) : a.number - b.number
						return direction === 'asc' ? order : -order
					})
				return paged(
					url,
					listed.map((issue) => view(fullName, issue)),
					ifNoneMatch,
				)
			}
			const number = Number(rest[1])
			const issue = issues.get(number)
			if (rest[0] === 'issues' && rest[2] === 'comments') {
				return issue ? paged(url, issue.comments) : new Response('{"message":"Not Found"}', { status: 404 })
			}
			if (rest[0] === 'pulls' && rest[2] === 'comments') {
				return issue?.pull ? paged(url, issue.reviewComments) : new Response('{"message":"Not Found"}', { status: 404 })
			}
			return null
		},
		/** Opens an issue (or a pull request); returns its number. */
		open: (fullName: string, input: NewIssue) => add(fullName, input).number,
		/** A conversation comment, or with `path` a review comment on a pull request's file. */
		comment(fullName: string, number: number, body: string, options: { author?: string; path?: string } = {}) {
			const issue = issueOf(fullName, number)
			const now = tick()
			const comment: Comment = {
				id: nextCommentId++,
				user: { login: options.author ?? 'octo' },
				body,
				created_at: now,
				updated_at: now,
				...(options.path ? { path: options.path } : {}),
			}
			if (options.path) issue.reviewComments.push(comment)
			else issue.comments.push(comment)
			issue.updated_at = now
		},
		/** Closes (or reopens) an issue, or merges a pull request. */
		setState(fullName: string, number: number, state: 'open' | 'closed' | 'merged') {
			const issue = issueOf(fullName, number)
			issue.updated_at = tick()
			issue.state = state === 'open' ? 'open' : 'closed'
			issue.merged_at = state === 'merged' ? issue.updated_at : null
		},
		/** Deleted by an administrator: it leaves every listing and no change says so. */
		remove: (fullName: string, number: number) => repoOf(fullName).issues.delete(number),
		/** Moved to another repository, where it gets a new number (returned). */
		transfer(fullName: string, number: number, to: string) {
			const issue = issueOf(fullName, number)
			repoOf(fullName).issues.delete(number)
			const moved = add(to, { title: issue.title, body: issue.body, author: issue.user, created_at: issue.created_at })
			moved.comments = issue.comments
			return moved.number
		},
	}
}
