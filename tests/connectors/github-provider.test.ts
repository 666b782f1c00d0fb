import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { github } from '../../connectors/github/index.ts'
import type { GithubOptions, GithubSettings } from '../../connectors/github/options.ts'
import { RateLimitedError } from '../../core/index.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'

const REPO = 'octo/handbook'
const OTHER = 'octo/wiki'

describe('GitHub connector against GitHub as it answers', () => {
	let emulator: GithubEmulator
	beforeEach(() => {
		emulator = startGithubEmulator()
	})
	afterEach(() => emulator.stop())

	const harness = (repositories = [REPO], options: GithubOptions = {}) => {
		const connector = github({ apiUrl: emulator.url, webUrl: emulator.url, retryBaseMs: 10, ...options })
		const h = syncHarness<GithubSettings>({
			settings: {
				repositories: repositories.map((fullName, index) => ({ id: index + 1, fullName, defaultBranch: 'main' })),
				includeCode: false,
				includeIssues: false,
			},
		})
		const token = emulator.accessToken()
		h.ctx.accessToken = async () => token
		const run = () => h.run((ctx, cursor) => connector.sync(ctx, cursor as never))
		const paths = (repo = REPO) =>
			[...h.documents.keys()]
				.filter((id) => id.startsWith(`${repo}:`))
				.map((id) => id.slice(repo.length + 1))
				.sort()
		return { h, run, paths }
	}

	it('lists the whole tree again after a force push or reset, so discarded files and versions go', async () => {
		const first = emulator.createRepo(REPO, { 'a.md': '# A\n\nfirst' })
		const { h, run, paths } = harness()
		await run()
		emulator.commit(REPO, { 'a.md': '# A\n\nsecond', 'b.md': '# B' })
		await run()
		expect(paths()).toEqual(['a.md', 'b.md'])
		// `git reset --hard <first>` and push --force: GitHub's compare of synced...head answers 200, status behind.
		emulator.forcePush(REPO, first)
		await run()
		expect(paths()).toEqual(['a.md'])
		expect(h.documents.get(`${REPO}:a.md`)!.content).toContain('first')
		// Then a new commit on top: diverged from what was synced before the reset.
		emulator.forcePush(REPO, emulator.commit(REPO, { 'b.md': '# B' }))
		await run()
		emulator.forcePush(REPO, first)
		emulator.commit(REPO, { 'c.md': '# C' })
		await run()
		expect(paths()).toEqual(['a.md', 'c.md'])
	})

	for (const status of [500, 406] as const) {
		it(`falls back to the whole tree when compare answers ${status}, and the other repositories go on`, async () => {
			emulator.createRepo(REPO, { 'a.md': '# A\n\nfirst' })
			emulator.createRepo(OTHER, { 'w.md': '# W' })
			const { h, run, paths } = harness([REPO, OTHER])
			await run()
			emulator.commit(REPO, { 'a.md': '# A\n\nsecond', 'gone.md': null })
			emulator.commit(OTHER, { 'x.md': '# X' })
			emulator.quirks.compareError.set(REPO, status)
			await run()
			expect(h.documents.get(`${REPO}:a.md`)!.content).toContain('second')
			expect(paths(OTHER)).toEqual(['w.md', 'x.md'])
		})
	}

	it('reads a truncated tree directory by directory and deletes nothing it could not list', async () => {
		const files = Object.fromEntries(
			Array.from({ length: 10 }, (_, index) => [`docs/part${index % 3}/page${index}.md`, `# Page ${index}`]),
		)
		emulator.createRepo(REPO, files)
		emulator.quirks.treeLimit = 4
		const { h, run, paths } = harness()
		await run()
		expect(paths()).toEqual(Object.keys(files).sort())
		// A later full listing (cursor lost) with the tree cut again: still every file, none deleted.
		h.cursor = null
		await run()
		expect(paths()).toHaveLength(10)
	})

	it('knows sizes before downloading on incremental syncs: nothing over the limit is read', async () => {
		emulator.createRepo(REPO, { 'a.md': '# A' })
		const { run, paths } = harness([REPO], { maxFileBytes: 1024 })
		await run()
		emulator.commit(REPO, { 'huge.md': 'x'.repeat(64 * 1024), 'b.md': '# B' })
		const before = emulator.blobReads()
		const events = await run()
		expect(emulator.blobReads() - before).toBe(1)
		expect(paths()).toEqual(['a.md', 'b.md'])
		const failure = eventsOf(events, 'failure').find((event) => event.externalId === `${REPO}:huge.md`)
		expect(failure).toMatchObject({ error: expect.stringContaining('GITHUB_FILE_TOO_LARGE'), retry: 'permanent' })
	})

	it('skips symbolic links, and names binary content and Git LFS pointers instead of importing them', async () => {
		emulator.createRepo(REPO, {
			'a.md': '# A',
			'binary.md': 'PK\u0003\u0004\u0000\u0000 zipped bytes',
			'big.md':
				'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n',
		})
		emulator.symlink(REPO, 'link.md', 'a.md')
		const { run, paths } = harness()
		const events = await run()
		expect(paths()).toEqual(['a.md'])
		const errors = eventsOf(events, 'failure').map((event) => event.error)
		expect(errors.some((error) => error.startsWith('GITHUB_BINARY_FILE'))).toBe(true)
		expect(errors.some((error) => error.startsWith('GITHUB_LFS_FILE'))).toBe(true)
		expect(errors.some((error) => error.includes('link.md'))).toBe(false)
	})

	for (const kind of ['primary', 'secondary'] as const) {
		it(`waits out a ${kind} rate limit and reads every file`, async () => {
			const files = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`f${index}.md`, `# F${index}`]))
			const head = emulator.createRepo(REPO, files)
			emulator.quirks.rateLimit = { kind, after: 4, seconds: 1 }
			const { h, run, paths } = harness()
			const events = await run()
			expect(eventsOf(events, 'failure')).toEqual([])
			expect(paths()).toHaveLength(10)
			expect(h.cursor?.[REPO]).toBe(head)
		}, 30_000)
	}

	it('ends the sync as rate limited, with the reset time, when the limit lasts longer than it waits', async () => {
		emulator.createRepo(REPO, { 'a.md': '# A', 'b.md': '# B' })
		emulator.quirks.rateLimit = { kind: 'primary', after: 2, seconds: 3600 }
		const { run } = harness()
		const error = await run().catch((thrown: unknown) => thrown)
		expect(error).toBeInstanceOf(RateLimitedError)
		expect((error as RateLimitedError).resetAt.getTime()).toBeGreaterThan(Date.now() + 3_000_000)
	})

	it('retries a 5xx, and keeps the synced commit while a file could not be read, so it is read later', async () => {
		emulator.createRepo(REPO, { 'a.md': '# A' })
		const { h, run, paths } = harness()
		await run()
		const synced = h.cursor?.[REPO]
		emulator.commit(REPO, { 'b.md': '# B', 'c.md': '# C' })
		// One 502 is retried by the client; a blob failing on every try fails the file.
		emulator.quirks.failNext.push({ path: /\/git\/blobs\//, status: 502, message: 'Server Error', times: 1 })
		await run()
		expect(paths()).toEqual(['a.md', 'b.md', 'c.md'])
		emulator.commit(REPO, { 'd.md': '# D', 'e.md': '# E' })
		emulator.quirks.failNext.push({ path: /\/git\/blobs\//, status: 500, message: 'Server Error', times: 8 })
		const failed = await run()
		expect(eventsOf(failed, 'failure').length).toBeGreaterThan(0)
		expect(h.cursor?.[REPO]).not.toBe(emulator.head(REPO))
		expect(h.cursor?.[REPO]).not.toBe(synced)
		emulator.commit(REPO, { 'f.md': '# F' })
		await run()
		expect(paths()).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md'])
		expect(h.cursor?.[REPO]).toBe(emulator.head(REPO))
	}, 60_000)

	for (const refusal of [
		{
			status: 403,
			message:
				'Resource protected by organization SAML enforcement. You must grant your OAuth token access to this organization.',
		},
		{ status: 451, message: 'Repository access blocked' },
	] as const) {
		it(`fails only the repository GitHub answers ${refusal.status} for, naming the reason`, async () => {
			emulator.createRepo(REPO, { 'a.md': '# A' })
			emulator.createRepo(OTHER, { 'w.md': '# W' })
			const { h, run, paths } = harness([REPO, OTHER])
			await run()
			emulator.quirks.refused.set(REPO, refusal)
			emulator.commit(OTHER, { 'x.md': '# X' })
			const events = await run()
			expect(eventsOf(events, 'scope-failed')).toEqual([
				{ type: 'scope-failed', scope: REPO, error: expect.stringContaining(refusal.message) },
			])
			expect(paths(OTHER)).toEqual(['w.md', 'x.md'])
			expect(paths()).toEqual(['a.md'])
			expect(h.documents.size).toBe(3)
		})
	}

	it('follows the default branch GitHub names now, whatever was configured', async () => {
		emulator.createRepo(REPO, { 'a.md': '# A' }, 'master')
		const { run, paths } = harness()
		await run()
		expect(paths()).toEqual(['a.md'])
		emulator.setDefaultBranch(REPO, 'trunk')
		emulator.commit(REPO, { 'b.md': '# B' })
		await run()
		expect(paths()).toEqual(['a.md', 'b.md'])
	})

	it("follows a renamed or transferred repository through GitHub's 301: its documents kept, new commits read", async () => {
		emulator.createRepo(REPO, { 'a.md': '# A', 'b.md': '# B' })
		const { h, run, paths } = harness()
		await run()
		emulator.renameRepo(REPO, 'octo/garden-handbook')
		const renamed = await run()
		expect(eventsOf(renamed, 'scope-failed')).toEqual([])
		expect(eventsOf(renamed, 'delete')).toEqual([])
		expect(eventsOf(renamed, 'upsert')).toEqual([])
		expect(paths()).toEqual(['a.md', 'b.md'])
		// Then transferred to another owner, with a new commit: read through the redirect, under the name it has now.
		emulator.renameRepo('octo/garden-handbook', 'garden/handbook')
		emulator.commit('garden/handbook', { 'c.md': '# C' })
		const moved = await run()
		expect(eventsOf(moved, 'delete')).toEqual([])
		expect(eventsOf(moved, 'upsert').map((event) => event.document.externalId)).toEqual([`${REPO}:c.md`])
		expect(paths()).toEqual(['a.md', 'b.md', 'c.md'])
		expect(h.documents.get(`${REPO}:c.md`)!.url).toContain('/garden/handbook/blob/')
		expect(emulator.log.some((line) => line.startsWith(`GET /repos/${REPO}`))).toBe(true)
		expect(emulator.log.some((line) => line.startsWith('GET /repositories/'))).toBe(true)
	})

	it('asks for the branch head conditionally: an unchanged branch answers 304 and nothing else is read', async () => {
		emulator.createRepo(REPO, { 'a.md': '# A' })
		const { run, paths } = harness()
		await run()
		const before = emulator.log.length
		const requestsBefore = emulator.quirks.requests
		await run()
		const second = emulator.log.slice(before)
		expect(second.filter((line) => line === '304')).toHaveLength(1)
		expect(second.some((line) => /compare|git\/trees|git\/blobs/.test(line))).toBe(false)
		// The 304 is not counted against the rate limit: only the repository read is.
		expect(emulator.quirks.requests - requestsBefore).toBe(1)
		emulator.commit(REPO, { 'b.md': '# B' })
		await run()
		expect(paths()).toEqual(['a.md', 'b.md'])
	})

	it('keeps the branch tag of a sync that found nothing new, so the next one is conditional', async () => {
		emulator.createRepo(REPO, { 'a.md': '# A' })
		const { run, h } = harness()
		await run()
		// A cursor from before conditional reads: no tag, the repository synced at its head.
		h.cursor = Object.fromEntries(Object.entries(h.cursor ?? {}).filter(([key]) => !key.startsWith('branchTag:')))
		await run()
		const before = emulator.log.length
		await run()
		expect(emulator.log.slice(before).filter((line) => line === '304')).toHaveLength(1)
	})

	it('removes a deleted repository only once it is missing twice in a row', async () => {
		emulator.createRepo(REPO, { 'a.md': '# A' })
		emulator.createRepo(OTHER, { 'w.md': '# W' })
		const { run, paths } = harness([REPO, OTHER])
		await run()
		emulator.deleteRepo(REPO)
		const first = await run()
		expect(eventsOf(first, 'scope-failed')[0]?.error).toContain('kept until')
		expect(paths()).toEqual(['a.md'])
		await run()
		expect(paths()).toEqual([])
		expect(paths(OTHER)).toEqual(['w.md'])
	})
})
