import { createHash, createHmac } from 'node:crypto'
import { faultLayer } from './faults.ts'
import { issueTracker } from './github-issues.ts'
import { type IssuedCode, redeemCode } from './oauth-code.ts'

/**
 * A local GitHub: the OAuth web flow (with PKCE, refresh-token rotation and revocation), the REST calls the GitHub
 * connector makes (user, repositories, branches, trees, blobs, compare, hooks, issues and their comments) and signed
 * webhook deliveries. Real HTTP on 127.0.0.1, so @octokit/rest and the OAuth client run unchanged against it.
 */

interface Repo {
	id: number
	fullName: string
	defaultBranch: string
	/** Commit sha -> its tree (path -> blob sha). */
	commits: Map<string, Map<string, string>>
	/** Commit sha -> its parent (null for the first commit). */
	parents: Map<string, string | null>
	head: string
	hooks: { id: number; url: string; secret: string; events: string[] }[]
	/** The user is not an administrator: creating a hook answers 404, as GitHub does. */
	admin: boolean
}

/** How GitHub refuses one repository (SAML enforcement 403, DMCA 451). */
export interface RepoRefusal {
	status: 403 | 451
	message: string
}

interface Grant {
	login: string
	expiresAt: number | null
	refreshToken: string | null
	revoked: boolean
}

export interface GithubEmulatorOptions {
	clientId?: string
	clientSecret?: string
	/** Seconds access tokens live (GitHub App user tokens); null: they never expire (OAuth Apps). */
	tokenLifetimeSeconds?: number | null
	/** Milliseconds each blob read waits (to interrupt a sync in its middle). */
	blobDelayMs?: number
	/** Milliseconds a token refresh takes (to let two refreshes overlap). */
	refreshDelayMs?: number
	/** Milliseconds an API call waits before its token is checked (a slow network: the token may be rotated meanwhile). */
	apiDelayMs?: number
}

/**
 * Failure modes GitHub shows, each as GitHub answers it. Rate limits ("Rate limits for the REST API"): a primary limit
 * answers 403 (or 429) with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` in epoch seconds; a secondary one
 * answers 403 (or 429) with a message naming the secondary rate limit and, often, `retry-after` in seconds.
 */
export interface GithubQuirks {
	/** After `after` more API requests, every request is limited for `seconds`. */
	rateLimit: { kind: 'primary' | 'secondary'; after: number; seconds: number; status?: 403 | 429 } | null
	/** The next `times` requests whose path matches answer `status` with GitHub's error body. */
	failNext: { path: RegExp; status: number; message: string; times: number }[]
	/** Repositories refused as a whole. */
	refused: Map<string, RepoRefusal>
	/**
	 * Entries a recursive tree holds at most before it is cut and marked `truncated` ("Get a tree": "If truncated is
	 * true in the response then the number of items in the tree array exceeded our maximum limit").
	 */
	treeLimit: number | null
	/**
	 * Compare refusals: 500 "this diff is taking too long to generate" and 406 "diff too large", both deterministic for
	 * the commit pair (github-changelog-generator#920, ExpediaGroup/github-helpers#699).
	 */
	compareError: Map<string, 500 | 406>
	/** API requests answered so far (rate limits included). */
	requests: number
}

const DOCS_REDIRECTS = 'https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects'
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex')
const blobSha = (content: string) => sha1(`blob ${Buffer.byteLength(content)}\u0000${content}`)

export function startGithubEmulator(options: GithubEmulatorOptions = {}) {
	const clientId = options.clientId ?? 'emulated-client'
	const clientSecret = options.clientSecret ?? 'emulated-secret'
	const blobs = new Map<string, string>()
	const repos = new Map<string, Repo>()
	const codes = new Map<string, IssuedCode & { login: string }>()
	const grants = new Map<string, Grant>()
	const refreshTokens = new Map<string, string>()
	const log: string[] = []
	let nextId = 1000
	let url = ''
	/** Blob sha -> git file mode, for blobs that are not plain files (symlinks: 120000). */
	const modes = new Map<string, string>()
	/** Tree objects of directories, for non-recursive reads: tree sha -> (commit, directory). */
	const subtrees = new Map<string, { repo: Repo; commit: string; dir: string }>()
	/** Logins that show no public email. */
	const privateEmails = new Set<string>()
	/** Old full names of renamed or transferred repositories -> the repository's id. */
	const movedFrom = new Map<string, number>()
	const quirks: GithubQuirks = {
		rateLimit: null,
		failNext: [],
		refused: new Map(),
		treeLimit: null,
		compareError: new Map(),
		requests: 0,
	}
	let limitedUntil = 0
	let limitedKind: 'primary' | 'secondary' = 'primary'
	let limitedStatus = 403
	const issues = issueTracker(() => url)

	function issue(login: string): Record<string, unknown> {
		const access = `gho_${crypto.randomUUID().replaceAll('-', '')}`
		const lifetime = options.tokenLifetimeSeconds ?? null
		const refresh = lifetime === null ? null : `ghr_${crypto.randomUUID().replaceAll('-', '')}`
		grants.set(access, {
			login,
			expiresAt: lifetime === null ? null : Date.now() + lifetime * 1000,
			refreshToken: refresh,
			revoked: false,
		})
		if (refresh) refreshTokens.set(refresh, access)
		return {
			access_token: access,
			token_type: 'bearer',
			scope: 'repo,user:email,admin:repo_hook',
			...(refresh ? { refresh_token: refresh, expires_in: lifetime, refresh_token_expires_in: 15_897_600 } : {}),
		}
	}

	const resetEpoch = () => String(Math.ceil(Math.max(limitedUntil, Date.now() + 3_600_000) / 1000))
	const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
		new Response(JSON.stringify(body), {
			status,
			headers: {
				'content-type': 'application/json',
				'x-ratelimit-limit': '5000',
				'x-ratelimit-remaining': '4999',
				'x-ratelimit-reset': resetEpoch(),
				'x-ratelimit-resource': 'core',
				...headers,
			},
		})

	/** A rate-limited answer while a limit lasts, as GitHub words it; null otherwise. */
	function rateLimited(): Response | null {
		quirks.requests++
		const limit = quirks.rateLimit
		if (limit && limit.after-- <= 0) {
			quirks.rateLimit = null
			limitedUntil = Date.now() + limit.seconds * 1000
			limitedKind = limit.kind
			limitedStatus = limit.status ?? 403
		}
		if (Date.now() >= limitedUntil) return null
		const seconds = Math.ceil((limitedUntil - Date.now()) / 1000)
		if (limitedKind === 'primary') {
			return json(
				{
					message: 'API rate limit exceeded for user ID 1.',
					documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
				},
				limitedStatus,
				{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(limitedUntil / 1000)) },
			)
		}
		return json(
			{
				message:
					'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000.',
				documentation_url:
					'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
			},
			limitedStatus,
			{ 'retry-after': String(seconds) },
		)
	}

	function injected(path: string): Response | null {
		const fault = quirks.failNext.find((entry) => entry.times > 0 && entry.path.test(path))
		if (!fault) return null
		fault.times--
		return json({ message: fault.message }, fault.status)
	}
	const notFound = () => json({ message: 'Not Found' }, 404)

	function grantOf(request: Request): Grant | null {
		const header = request.headers.get('authorization') ?? ''
		const token = header.replace(/^(token|bearer)\s+/i, '')
		const grant = grants.get(token)
		if (!grant || grant.revoked || (grant.expiresAt !== null && grant.expiresAt < Date.now())) return null
		return grant
	}

	function basicClient(request: Request, form: URLSearchParams): boolean {
		const header = request.headers.get('authorization')
		if (header?.startsWith('Basic ')) {
			const [id, secret] = Buffer.from(header.slice(6), 'base64').toString().split(':')
			return id === clientId && secret === clientSecret
		}
		return form.get('client_id') === clientId && form.get('client_secret') === clientSecret
	}

	async function tokenEndpoint(request: Request): Promise<Response> {
		const form = new URLSearchParams(await request.text())
		// GitHub answers OAuth errors with 200 and an error field.
		const error = (code: string, description: string) => json({ error: code, error_description: description })
		if (!basicClient(request, form)) return error('incorrect_client_credentials', 'bad client')
		if (form.get('grant_type') === 'refresh_token') {
			const old = form.get('refresh_token') ?? ''
			// A revoked grant (the fault layer's `revoke`) refuses its refresh token too.
			const access = faults.faults.revoke ? undefined : refreshTokens.get(old)
			if (!access) {
				log.push('POST refresh refused')
				return error('bad_refresh_token', 'unknown or used refresh token')
			}
			// Using a refresh token invalidates it and the old access token.
			refreshTokens.delete(old)
			const grant = grants.get(access)!
			grant.revoked = true
			log.push('POST refresh')
			if (options.refreshDelayMs) await Bun.sleep(options.refreshDelayMs)
			return json(issue(grant.login))
		}
		const code = redeemCode(codes, form, {
			unknown: () => error('bad_verification_code', 'unknown or used code'),
			redirectUri: () => error('redirect_uri_mismatch', 'redirect_uri differs'),
			verifier: () => error('invalid_grant', 'code_verifier does not match the challenge'),
		})
		if (code instanceof Response) return code
		log.push('POST exchange')
		return json(issue(code.login))
	}

	function treeOf(repo: Repo, sha: string) {
		return repo.commits.get(sha) ?? null
	}

	async function api(request: Request, url: URL): Promise<Response> {
		const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
		const method = request.method
		if (method === 'DELETE' && parts[0] === 'applications' && (parts[2] === 'token' || parts[2] === 'grant')) {
			const header = request.headers.get('authorization') ?? ''
			const [id, secret] = Buffer.from(header.replace(/^basic /i, ''), 'base64')
				.toString()
				.split(':')
			if (id !== clientId || secret !== clientSecret) return json({ message: 'Bad credentials' }, 401)
			const { access_token } = (await request.json()) as { access_token: string }
			const grant = grants.get(access_token)
			// "You must also provide a valid OAuth access_token": an expired or revoked one is not found.
			if (!grant || grant.revoked || (grant.expiresAt !== null && grant.expiresAt < Date.now())) return notFound()
			if (parts[2] === 'token') {
				// REST "Delete an app token": that one token; a GitHub App's refresh token still works.
				grant.revoked = true
			} else {
				// REST "Delete an app authorization": the user's grant and every token of it, refresh tokens included.
				for (const other of grants.values()) {
					if (other.login !== grant.login) continue
					other.revoked = true
					if (other.refreshToken) refreshTokens.delete(other.refreshToken)
				}
			}
			log.push(`DELETE ${parts[2]}`)
			return new Response(null, { status: 204 })
		}
		if (options.apiDelayMs) await Bun.sleep(options.apiDelayMs)
		const grant = grantOf(request)
		if (!grant) {
			log.push(`${method} refused`)
			return json({ message: 'Bad credentials' }, 401)
		}
		log.push(`${method} /${parts.join('/')}${url.search}`)
		const limited = rateLimited() ?? injected(url.pathname)
		if (limited) return limited
		if (parts[0] === 'user' && parts.length === 1) {
			// `email` is the user's public email: null unless they chose to show one ("Get the authenticated user").
			return json({
				login: grant.login,
				id: 1,
				email: privateEmails.has(grant.login) ? null : `${grant.login}@example.com`,
			})
		}
		if (parts[0] === 'user' && parts[1] === 'emails') {
			// "List email addresses for the authenticated user" (needs the `user:email` scope).
			return json([
				{ email: `${grant.login}@users.noreply.github.com`, primary: false, verified: true, visibility: null },
				{ email: `${grant.login}@example.com`, primary: true, verified: true, visibility: 'private' },
			])
		}
		if (parts[0] === 'user' && parts[1] === 'repos') {
			const page = Number(url.searchParams.get('page') ?? 1)
			const perPage = Number(url.searchParams.get('per_page') ?? 30)
			const all = [...repos.values()].map((repo) => ({
				id: repo.id,
				name: repo.fullName.split('/')[1],
				full_name: repo.fullName,
				description: null,
				private: false,
				default_branch: repo.defaultBranch,
				updated_at: '2026-11-20T00:00:00Z',
			}))
			return json(all.slice((page - 1) * perPage, page * perPage))
		}
		if (parts[0] === 'repositories' && parts.length >= 2) {
			// The stable address of a repository, by id: where the redirects of renamed and transferred ones lead.
			const byId = [...repos.values()].find((entry) => String(entry.id) === parts[1])
			if (!byId) return notFound()
			return repoApi(request, url, byId, parts.slice(2))
		}
		if (parts[0] !== 'repos' || parts.length < 3) return notFound()
		const name = `${parts[1]}/${parts[2]}`
		const repo = repos.get(name)
		if (!repo) {
			// "REST API: HTTP redirects": a renamed or transferred repository's old name answers 301 Moved Permanently,
			// its Location the repository by id (the GitHub changelog "Repository redirects are coming").
			const id = movedFrom.get(name)
			const moved = id === undefined ? undefined : [...repos.values()].find((entry) => entry.id === id)
			if (!moved) return notFound()
			const location = `${url.origin}/repositories/${moved.id}${parts.length > 3 ? `/${parts.slice(3).map(encodeURIComponent).join('/')}` : ''}${url.search}`
			return json({ message: 'Moved Permanently', url: location, documentation_url: DOCS_REDIRECTS }, 301, {
				location,
			})
		}
		return repoApi(request, url, repo, parts.slice(3))
	}

	async function repoApi(request: Request, url: URL, repo: Repo, rest: string[]): Promise<Response> {
		const method = request.method
		const refusal = quirks.refused.get(repo.fullName)
		if (refusal) return json({ message: refusal.message }, refusal.status)
		if (rest.length === 0 && method === 'GET') {
			return json({ id: repo.id, full_name: repo.fullName, default_branch: repo.defaultBranch, private: false })
		}
		const issueAnswer = issues.route(repo.fullName, method, rest, url, request.headers.get('if-none-match'))
		if (issueAnswer) return issueAnswer
		if (rest[0] === 'branches' && method === 'GET') {
			if (rest.slice(1).join('/') !== repo.defaultBranch) return notFound()
			// "Best practices for using the REST API: use conditional requests": a matching If-None-Match answers 304,
			// which does not count against the primary rate limit.
			const etag = `"${sha1(`${repo.id}:${repo.defaultBranch}:${repo.head}`)}"`
			if (request.headers.get('if-none-match') === etag) {
				log.push('304')
				quirks.requests--
				if (quirks.rateLimit) quirks.rateLimit.after++
				return new Response(null, { status: 304, headers: { etag } })
			}
			return json({ name: repo.defaultBranch, commit: { sha: repo.head } }, 200, { etag })
		}
		if (rest[0] === 'git' && rest[1] === 'trees') {
			const sha = rest[2] ?? ''
			const commit = treeOf(repo, sha) ? { commit: sha, dir: '' } : subtrees.get(sha)
			if (!commit) return notFound()
			const entries = treeEntries(repo, commit.commit, commit.dir, url.searchParams.has('recursive'))
			const limit = quirks.treeLimit
			const truncated = limit !== null && entries.length > limit
			return json({ sha, truncated, tree: truncated ? entries.slice(0, limit) : entries })
		}
		if (rest[0] === 'git' && rest[1] === 'blobs') {
			const content = blobs.get(rest[2] ?? '')
			if (content === undefined) return notFound()
			if (options.blobDelayMs) await Bun.sleep(options.blobDelayMs)
			return json({
				sha: rest[2],
				size: Buffer.byteLength(content),
				encoding: 'base64',
				content: Buffer.from(content).toString('base64'),
			})
		}
		if (rest[0] === 'compare') {
			const [base = '', head = ''] = (rest[1] ?? '').split('...')
			if (!treeOf(repo, base) || !treeOf(repo, head)) return notFound()
			const refused = quirks.compareError.get(repo.fullName)
			if (refused === 500)
				return json({ message: 'Server Error: Sorry, this diff is taking too long to generate.' }, 500)
			if (refused === 406) {
				return json({ message: 'Sorry, this diff is too large. The diff exceeded the maximum number of files.' }, 406)
			}
			return json(compare(repo, base, head))
		}
		if (rest[0] === 'hooks' && method === 'POST') {
			// Creating a hook needs admin rights; GitHub hides the repository's hooks from others with a 404.
			if (!repo.admin) return notFound()
			const body = (await request.json()) as { events?: string[]; config: { url: string; secret: string } }
			if (repo.hooks.some((hook) => hook.url === body.config.url)) {
				return json(
					{
						message: 'Validation Failed',
						errors: [{ resource: 'Hook', code: 'custom', message: 'Hook already exists on this repository' }],
						documentation_url: 'https://docs.github.com/rest/repos/webhooks#create-a-repository-webhook',
					},
					422,
				)
			}
			const hook = { id: nextId++, url: body.config.url, secret: body.config.secret, events: body.events ?? ['push'] }
			repo.hooks.push(hook)
			return json({ id: hook.id, active: true, config: { url: hook.url } }, 201)
		}
		if (rest[0] === 'hooks' && rest.length === 1 && method === 'GET') {
			if (!repo.admin) return notFound()
			return json(
				repo.hooks.map((hook) => ({ id: hook.id, active: true, events: hook.events, config: { url: hook.url } })),
			)
		}
		if (rest[0] === 'hooks' && rest.length === 2 && method === 'PATCH') {
			const hook = repo.hooks.find((entry) => entry.id === Number(rest[1]))
			if (!hook || !repo.admin) return notFound()
			const body = (await request.json()) as { events?: string[]; config?: { url?: string; secret?: string } }
			if (body.events) hook.events = body.events
			if (body.config?.url) hook.url = body.config.url
			if (body.config?.secret) hook.secret = body.config.secret
			return json({ id: hook.id, active: true, events: hook.events, config: { url: hook.url } })
		}
		if (rest[0] === 'hooks' && method === 'DELETE') {
			const before = repo.hooks.length
			repo.hooks = repo.hooks.filter((hook) => hook.id !== Number(rest[1]))
			return repo.hooks.length < before ? new Response(null, { status: 204 }) : notFound()
		}
		return notFound()
	}

	/** Entries of a commit's tree under `dir`: all of them, or (non-recursive) its files and direct subdirectories. */
	function treeEntries(repo: Repo, commit: string, dir: string, recursive: boolean) {
		const tree = repo.commits.get(commit)!
		const prefix = dir ? `${dir}/` : ''
		const entries: { path: string; mode: string; type: string; sha: string; size?: number }[] = []
		const directories = new Set<string>()
		for (const [path, sha] of tree) {
			if (!path.startsWith(prefix)) continue
			const relative = path.slice(prefix.length)
			const parts = relative.split('/')
			for (let depth = 1; depth < parts.length; depth++) {
				if (!recursive && depth > 1) break
				directories.add(parts.slice(0, depth).join('/'))
			}
			if (!recursive && parts.length > 1) continue
			entries.push({
				path: relative,
				mode: modes.get(sha) ?? '100644',
				type: 'blob',
				sha,
				size: Buffer.byteLength(blobs.get(sha) ?? ''),
			})
		}
		for (const directory of directories) {
			const sha = sha1(`tree:${commit}:${prefix}${directory}`)
			subtrees.set(sha, { repo, commit, dir: `${prefix}${directory}` })
			entries.push({ path: directory, mode: '040000', type: 'tree', sha })
		}
		return entries.sort((a, b) => a.path.localeCompare(b.path))
	}

	/**
	 * A three-dot comparison as GitHub makes it: the files changed between the merge base and the head, with `status`
	 * ahead, behind, diverged or identical ("About comparing branches in pull requests").
	 */
	function compare(repo: Repo, base: string, head: string) {
		const ancestors = (sha: string) => {
			const chain: string[] = []
			for (let at: string | null | undefined = sha; at; at = repo.parents.get(at)) chain.push(at)
			return chain
		}
		const baseChain = ancestors(base)
		const headChain = ancestors(head)
		const mergeBase = headChain.find((sha) => baseChain.includes(sha)) ?? null
		const aheadBy = mergeBase ? headChain.indexOf(mergeBase) : headChain.length
		const behindBy = mergeBase ? baseChain.indexOf(mergeBase) : baseChain.length
		const status =
			aheadBy === 0 && behindBy === 0 ? 'identical' : behindBy === 0 ? 'ahead' : aheadBy === 0 ? 'behind' : 'diverged'
		const before = mergeBase ? repo.commits.get(mergeBase)! : new Map<string, string>()
		const after = repo.commits.get(head)!
		const files = []
		for (const [path, sha] of after) {
			if (!before.has(path)) files.push({ filename: path, status: 'added', sha })
			else if (before.get(path) !== sha) files.push({ filename: path, status: 'modified', sha })
		}
		for (const [path, sha] of before) if (!after.has(path)) files.push({ filename: path, status: 'removed', sha })
		return {
			status,
			ahead_by: aheadBy,
			behind_by: behindBy,
			total_commits: aheadBy,
			base_commit: { sha: base },
			merge_base_commit: { sha: mergeBase },
			commits: headChain.slice(0, aheadBy).map((sha) => ({ sha })),
			files,
		}
	}

	const faults = faultLayer('github')
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(request) {
			const fault = await faults.before(request)
			if (fault) return fault
			const url = new URL(request.url)
			if (url.pathname === '/login/oauth/authorize') {
				const redirect = new URL(url.searchParams.get('redirect_uri') ?? '')
				if (url.searchParams.get('client_id') !== clientId) return json({ message: 'unknown client' }, 404)
				const code = crypto.randomUUID()
				codes.set(code, {
					redirectUri: redirect.toString(),
					challenge: url.searchParams.get('code_challenge'),
					method: url.searchParams.get('code_challenge_method'),
					login: 'octo',
				})
				redirect.searchParams.set('code', code)
				redirect.searchParams.set('state', url.searchParams.get('state') ?? '')
				return new Response(null, { status: 302, headers: { location: redirect.toString() } })
			}
			if (url.pathname === '/login/oauth/access_token' && request.method === 'POST') return tokenEndpoint(request)
			return api(request, url)
		},
	})
	url = `http://127.0.0.1:${server.port}`
	/** A delivery of `event` for the repository's newest hook, as GitHub sends it; `secret` overrides the signing key. */
	function delivery(
		fullName: string,
		event: string,
		payload: Record<string, unknown>,
		options: { secret?: string; deliveryId?: string } = {},
	) {
		const repo = repos.get(fullName)!
		const hook = repo.hooks.at(-1)!
		const body = JSON.stringify({ ...payload, repository: { full_name: fullName, id: repo.id } })
		const signature = `sha256=${createHmac('sha256', options.secret ?? hook.secret)
			.update(body)
			.digest('hex')}`
		return {
			body,
			headers: {
				'content-type': 'application/json',
				'x-github-event': event,
				'x-github-delivery': options.deliveryId ?? crypto.randomUUID(),
				'x-github-hook-id': String(hook.id),
				'x-hub-signature-256': signature,
				'user-agent': 'GitHub-Hookshot/emulator',
			},
		}
	}

	return {
		faults,
		url,
		clientId,
		clientSecret,
		log,
		/** Creates a repository with a first commit of `files` (path -> content). */
		createRepo(fullName: string, files: Record<string, string>, defaultBranch = 'main') {
			const repo: Repo = {
				id: nextId++,
				fullName,
				defaultBranch,
				commits: new Map(),
				parents: new Map(),
				head: '',
				hooks: [],
				admin: true,
			}
			repos.set(fullName, repo)
			movedFrom.delete(fullName)
			return this.commit(fullName, files)
		},
		/** A new commit on the default branch: `files` written (null: removed). Returns its sha. */
		commit(fullName: string, files: Record<string, string | null>): string {
			const repo = repos.get(fullName)!
			const tree = new Map(repo.head ? repo.commits.get(repo.head) : [])
			for (const [path, content] of Object.entries(files)) {
				if (content === null) tree.delete(path)
				else {
					const sha = blobSha(content)
					blobs.set(sha, content)
					tree.set(path, sha)
				}
			}
			const sha = sha1(`${repo.head}:${JSON.stringify([...tree])}:${Math.random()}`)
			repo.commits.set(sha, tree)
			repo.parents.set(sha, repo.head || null)
			repo.head = sha
			return sha
		},
		/** A symbolic link (mode 120000) at `path`, its blob the target path, committed on the default branch. */
		symlink(fullName: string, path: string, target: string): string {
			modes.set(blobSha(target), '120000')
			return this.commit(fullName, { [path]: target })
		},
		/** `git push --force` / `git reset --hard`: the branch points at `sha`, an earlier commit; later ones are dropped. */
		forcePush(fullName: string, sha: string) {
			const repo = repos.get(fullName)!
			if (!repo.commits.has(sha)) throw new Error(`${sha} is not a commit of ${fullName}`)
			repo.head = sha
		},
		head: (fullName: string) => repos.get(fullName)!.head,
		/** The default branch is renamed (or another one chosen), pointing at the same commit. */
		setDefaultBranch(fullName: string, branch: string) {
			repos.get(fullName)!.defaultBranch = branch
		},
		/** The user keeps their email private: `/user` answers `email: null`, `/user/emails` still lists it. */
		hideEmail(login = 'octo') {
			privateEmails.add(login)
		},
		/** The token's user loses admin rights on the repository (hooks answer 404). */
		setAdmin(fullName: string, admin: boolean) {
			repos.get(fullName)!.admin = admin
		},
		/**
		 * The repository is renamed or transferred to another owner: its old name answers 301 to the repository by id,
		 * until a repository of that name is created again.
		 */
		renameRepo(fullName: string, to: string) {
			const repo = repos.get(fullName)!
			repos.delete(fullName)
			repo.fullName = to
			repos.set(to, repo)
			movedFrom.set(fullName, repo.id)
			movedFrom.delete(to)
		},
		/** The repository is deleted (every call answers 404). */
		deleteRepo(fullName: string) {
			repos.delete(fullName)
		},
		/** GitHub's own failure modes, as it answers them (beside the shared fault layer, `faults`). */
		quirks,
		hooks: (fullName: string) => repos.get(fullName)?.hooks ?? [],
		/** A push delivery for the repository's newest hook, as GitHub sends it; `secret` overrides the signing key. */
		pushDelivery(fullName: string, options: { secret?: string; ref?: string; deliveryId?: string } = {}) {
			const repo = repos.get(fullName)!
			const payload = { ref: options.ref ?? `refs/heads/${repo.defaultBranch}`, after: repo.head, commits: [] }
			return delivery(fullName, 'push', payload, options)
		},
		delivery,
		/** Issues and pull requests: open, comment, close or merge, delete, transfer. */
		issues,
		/** A valid access token of a new grant (for tests that call a connector's sync directly). */
		accessToken: (login = 'octo') => issue(login).access_token as string,
		/** Every grant issued so far stops working (the user revoked the application). */
		revokeAll() {
			for (const grant of grants.values()) grant.revoked = true
		},
		blobReads: () => log.filter((line) => line.includes('/git/blobs/')).length,
		grantIsRevoked: (accessToken: string) => grants.get(accessToken)?.revoked ?? true,
		liveGrants: () => [...grants.values()].filter((grant) => !grant.revoked).length,
		/** Refresh tokens that still work: the application keeps access through them while any is left. */
		liveRefreshTokens: () => refreshTokens.size,
		stop: () => server.stop(true),
	}
}

export type GithubEmulator = ReturnType<typeof startGithubEmulator>
