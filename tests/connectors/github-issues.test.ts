import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { github } from '../../connectors/github/index.ts'
import type { GithubSettings } from '../../connectors/github/options.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { eventsOf, syncHarness } from '../../testkit/connector-context.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const settings = (fullName: string, includeIssues = true): GithubSettings => ({
	repositories: [{ id: 1, fullName, defaultBranch: 'main' }],
	includeCode: false,
	includeIssues,
})

/** The connector's sync run directly against the emulator, applied the way the runtime applies it. */
function harnessFor(emulator: GithubEmulator, fullName: string, options: { reconcileHours?: number } = {}) {
	const connector = github({
		apiUrl: emulator.url,
		webUrl: emulator.url,
		issueReconcileHours: options.reconcileHours ?? 24,
	})
	const h = syncHarness<GithubSettings>({ settings: settings(fullName) })
	const token = emulator.accessToken()
	h.ctx.accessToken = async () => token
	const sync = () => h.run((ctx, cursor) => connector.sync(ctx, cursor as never))
	return { h, sync }
}

const issueCalls = (emulator: GithubEmulator, from: number) =>
	emulator.log.slice(from).filter((line) => /\/(issues|pulls)(\/|\?|$)/.test(line))

describe('GitHub connector: issues and pull requests (sync)', () => {
	const emulator = startGithubEmulator()
	afterAll(() => emulator.stop())

	it('imports none when the option is off, and reads no issue', async () => {
		emulator.createRepo('octo/off', { 'README.md': '# Off' })
		emulator.issues.open('octo/off', { title: 'Not wanted', body: 'An issue.' })
		const { h, sync } = harnessFor(emulator, 'octo/off')
		h.ctx.settings = settings('octo/off', false)
		const from = emulator.log.length
		const events = await sync()
		expect(eventsOf(events, 'upsert').map((e) => e.document.externalId)).toEqual(['octo/off:README.md'])
		expect(issueCalls(emulator, from)).toEqual([])
	})

	it('imports one document per issue and pull request: state, labels, author, body, then comments in order', async () => {
		const repo = 'octo/tracker'
		emulator.createRepo(repo, { 'README.md': '# Tracker' })
		const bug = emulator.issues.open(repo, {
			title: 'Login fails on Safari',
			body: 'Steps: open the login page in Safari 17.',
			labels: ['bug', 'auth'],
			author: 'marie',
		})
		emulator.issues.comment(repo, bug, 'I can reproduce it on 17.1 too.', { author: 'sam' })
		emulator.issues.comment(repo, bug, 'Fixed by clearing the cookie jar.', { author: 'marie' })
		emulator.issues.setState(repo, bug, 'closed')
		const pull = emulator.issues.open(repo, { title: 'Clear cookies on logout', body: 'Closes #1.', pull: true })
		emulator.issues.comment(repo, pull, 'Looks good.', { author: 'sam' })
		emulator.issues.comment(repo, pull, 'Rename this variable.', { author: 'lee', path: 'src/session.ts' })
		emulator.issues.setState(repo, pull, 'merged')
		const quiet = emulator.issues.open(repo, { title: 'Dark mode', author: 'lee' })

		const { h, sync } = harnessFor(emulator, repo)
		const from = emulator.log.length
		const events = await sync()
		expect([...h.documents.keys()].sort()).toEqual([`${repo}#1`, `${repo}#2`, `${repo}#3`, `${repo}:README.md`])
		const issue = h.documents.get(`${repo}#${bug}`)!
		expect(issue).toMatchObject({
			title: 'Login fails on Safari',
			sourceType: 'github_issue',
			url: `${emulator.url}/${repo}/issues/${bug}`,
			metadata: { repository: repo, number: bug, kind: 'issue', state: 'closed', labels: 'bug, auth', author: 'marie' },
		})
		const content = issue.content!
		expect(content).toStartWith('# Login fails on Safari')
		expect(content).toContain('Issue #1 in octo/tracker · closed · opened by @marie')
		expect(content).toContain('Labels: bug, auth')
		expect(content).toContain('Steps: open the login page in Safari 17.')
		const first = content.indexOf('**@sam**')
		const second = content.indexOf('**@marie**')
		expect(first).toBeGreaterThan(content.indexOf('## Comments'))
		expect(second).toBeGreaterThan(first)
		expect(content).toContain('Fixed by clearing the cookie jar.')

		const pr = h.documents.get(`${repo}#${pull}`)!
		expect(pr).toMatchObject({
			sourceType: 'github_pull_request',
			url: `${emulator.url}/${repo}/pull/${pull}`,
			metadata: { kind: 'pull_request', state: 'merged', comments: 2 },
		})
		expect(pr.content).toContain('**@lee** on `src/session.ts`')
		expect(pr.content!.indexOf('Looks good.')).toBeLessThan(pr.content!.indexOf('Rename this variable.'))
		expect(h.documents.get(`${repo}#${quiet}`)?.content).toContain('(no description)')

		// An issue without comments is read from the listing alone.
		const calls = issueCalls(emulator, from)
		expect(calls.filter((line) => line.includes(`/issues/${quiet}/comments`))).toEqual([])
		expect(calls.filter((line) => line.includes(`/pulls/${pull}/comments`))).toHaveLength(1)
		expect(eventsOf(events, 'present').find((e) => e.prefix === `${repo}#`)?.externalIds).toHaveLength(3)
		expect(h.cursor).toMatchObject({
			[`issues:${repo}`]: expect.any(String),
			[`issuesListed:${repo}`]: expect.any(String),
		})
	})

	it('syncs incrementally with since: only changed issues are read again, closed ones stay', async () => {
		const repo = 'octo/incremental'
		emulator.createRepo(repo, { 'README.md': '# Incremental' })
		const numbers = ['One', 'Two', 'Three'].map((title) => emulator.issues.open(repo, { title, body: title }))
		const { h, sync } = harnessFor(emulator, repo)
		await sync()
		const since = h.cursor![`issues:${repo}`]

		emulator.issues.comment(repo, numbers[1]!, 'A new finding.', { author: 'sam' })
		emulator.issues.setState(repo, numbers[2]!, 'closed')
		const added = emulator.issues.open(repo, { title: 'Four', body: 'Four' })
		const from = emulator.log.length
		const events = await sync()
		const listings = issueCalls(emulator, from).filter((line) => line.startsWith(`GET /repos/${repo}/issues?`))
		expect(listings).toHaveLength(1)
		expect(new URL(`http://x${listings[0]!.slice(4)}`).searchParams.get('since')).toBe(since as string)
		expect(
			eventsOf(events, 'upsert')
				.map((e) => e.document.externalId)
				.sort(),
		).toEqual([`${repo}#${numbers[1]}`, `${repo}#${numbers[2]}`, `${repo}#${added}`].sort())
		expect(eventsOf(events, 'present')).toEqual([])
		expect(h.documents.get(`${repo}#${numbers[1]}`)?.content).toContain('A new finding.')
		expect(h.documents.get(`${repo}#${numbers[2]}`)?.metadata?.state).toBe('closed')
		expect(h.documents.size).toBe(5)

		// Nothing changed: the listing repeats at most the last second, and nothing is read or stored.
		const quiet = await sync()
		expect(eventsOf(quiet, 'upsert')).toEqual([])
	})

	it('asks for the updated-since listing conditionally: nothing changed answers 304 and reads nothing', async () => {
		const repo = 'octo/conditional'
		emulator.createRepo(repo, { 'README.md': '# Conditional' })
		const number = emulator.issues.open(repo, { title: 'One', body: 'One' })
		const { h, sync } = harnessFor(emulator, repo)
		await sync()
		emulator.issues.comment(repo, number, 'Moved on.', { author: 'sam' })
		await sync()
		// The listing now starts where it will start next time: its first page's ETag is kept.
		await sync()
		const before = emulator.issues.notModified()
		const from = emulator.log.length
		const quiet = await sync()
		expect(emulator.issues.notModified() - before).toBe(1)
		expect(eventsOf(quiet, 'upsert')).toEqual([])
		expect(issueCalls(emulator, from).filter((line) => line.includes('/comments'))).toEqual([])
		// A change after it is listed again.
		emulator.issues.comment(repo, number, 'And again.', { author: 'sam' })
		await sync()
		expect(h.documents.get(`${repo}#${number}`)?.content).toContain('And again.')
	})

	it('pages through more than a page of issues, in full and incrementally', async () => {
		const repo = 'octo/busy'
		emulator.createRepo(repo, { 'README.md': '# Busy' })
		for (let i = 1; i <= 230; i++) emulator.issues.open(repo, { title: `Issue ${i}`, body: `Body ${i}` })
		const { h, sync } = harnessFor(emulator, repo)
		await sync()
		expect(h.documents.size).toBe(231)
		for (let i = 1; i <= 230; i += 2) emulator.issues.comment(repo, i, `Comment on ${i}`)
		const events = await sync()
		expect(eventsOf(events, 'upsert')).toHaveLength(115)
		expect(h.documents.get(`${repo}#229`)?.content).toContain('Comment on 229')
	})

	it('reconciles deleted and transferred issues at the full listing', async () => {
		const repo = 'octo/reconcile'
		emulator.createRepo(repo, { 'README.md': '# Reconcile' })
		emulator.createRepo('octo/elsewhere', { 'README.md': '# Elsewhere' })
		const [kept, deleted, moved] = ['Kept', 'Deleted', 'Moved'].map((title) => emulator.issues.open(repo, { title }))
		const daily = harnessFor(emulator, repo)
		const always = harnessFor(emulator, repo, { reconcileHours: 0 })
		await daily.sync()
		await always.sync()
		expect(always.h.documents.size).toBe(4)

		emulator.issues.remove(repo, deleted!)
		emulator.issues.transfer(repo, moved!, 'octo/elsewhere')
		// Within the day, an updated-since listing cannot see either.
		await daily.sync()
		expect(daily.h.documents.has(`${repo}#${deleted}`)).toBe(true)
		// A full listing does: both go, the files and the kept issue stay.
		await always.sync()
		expect([...always.h.documents.keys()].sort()).toEqual([`${repo}#${kept}`, `${repo}:README.md`])
	})
})

describeEachDriver('GitHub connector: issues through the service', (driver) => {
	const REPO = 'octo/service-issues'
	let emulator: GithubEmulator
	let t: TestService
	beforeAll(async () => {
		emulator = startGithubEmulator()
		emulator.createRepo(REPO, { 'README.md': '# Service\n\nThe README.' })
		t = await startTestService(driver, {
			env: {
				GITHUB_CLIENT_ID: emulator.clientId,
				GITHUB_CLIENT_SECRET: emulator.clientSecret,
				MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
			},
			plugins: [github({ apiUrl: emulator.url, webUrl: emulator.url })],
			extractor: null,
		})
	}, 180_000)
	afterAll(async () => {
		await t.stop()
		emulator.stop()
	}, 60_000)

	const settled = (id: string, since: string, key = t.key) => syncSettled(t, id, since, key)
	const connect = async (containerTag: string) => {
		const { created } = await authorizeThroughEmulator(t, 'github', { containerTag })
		await settled(created.body.id, '')
		return created.body.id as string
	}
	const configure = async (id: string, resource: Record<string, unknown>) => {
		const since = new Date().toISOString()
		const configured = await t.json('POST', `/v3/connections/${id}/configure`, {
			resources: [{ full_name: REPO, ...resource }],
		})
		expect(configured.status).toBe(200)
		return settled(id, since)
	}
	const post = (delivery: { body: string; headers: Record<string, string> }) =>
		t.request('POST', '/v3/connections/webhooks/github', { body: delivery.body, headers: delivery.headers, key: null })

	it('imports issues when configured with includeIssues, searchable, and syncs on issue webhooks', async () => {
		const number = emulator.issues.open(REPO, { title: 'Backups fail at night', body: 'The 2am backup job times out.' })
		const id = await connect('issues-on')
		const connection = await configure(id, { includeIssues: true })
		expect(connection.lastSyncRun).toMatchObject({ status: 'completed', added: 2, failed: 0 })
		expect(emulator.hooks(REPO).at(-1)?.events).toEqual(
			expect.arrayContaining(['push', 'issues', 'issue_comment', 'pull_request']),
		)
		const items = await t.service.plugins.storage.connections.items(id)
		const issueItem = items.find((item) => item.externalId === `${REPO}#${number}`)!
		const document = await t.waitForStatus(issueItem.documentId)
		expect(document.metadata).toMatchObject({
			provider: 'github',
			kind: 'issue',
			state: 'open',
			sourceType: 'github_issue',
		})
		const search = await t.json('POST', '/v3/search', { q: 'backup job times out', containerTag: 'issues-on' })
		expect(search.body.results[0]?.documentId).toBe(issueItem.documentId)

		for (const event of ['issue_comment', 'issues']) {
			if (event === 'issue_comment') emulator.issues.comment(REPO, number, 'Moved the job to 3am.', { author: 'sam' })
			else emulator.issues.setState(REPO, number, 'closed')
			const since = new Date().toISOString()
			// Each a delivery of its own, as GitHub's always are (an identical signed body is a replay).
			const action = event === 'issue_comment' ? 'created' : 'closed'
			const accepted = await post(emulator.delivery(REPO, event, { action, issue: { number } }))
			expect(accepted.status).toBe(202)
			expect(((await accepted.json()) as { accepted: number }).accepted).toBe(1)
			const synced = await settled(id, since)
			expect(synced.lastSyncRun).toMatchObject({ trigger: 'webhook', status: 'completed', updated: 1 })
		}
		const updated = await t.waitForStatus(issueItem.documentId)
		expect(updated.content).toContain('Moved the job to 3am.')
		expect(updated.metadata.state).toBe('closed')

		const pull = emulator.issues.open(REPO, { title: 'Move the backup', pull: true })
		const since = new Date().toISOString()
		expect((await post(emulator.delivery(REPO, 'pull_request', { action: 'opened', number: pull }))).status).toBe(202)
		expect((await settled(id, since)).lastSyncRun).toMatchObject({ trigger: 'webhook', added: 1 })
	}, 90_000)

	it('without includeIssues imports no issue and an issue webhook starts no sync', async () => {
		emulator.issues.open(REPO, { title: 'Ignored', body: 'Not imported.' })
		const id = await connect('issues-off')
		const connection = await configure(id, {})
		expect(connection.lastSyncRun).toMatchObject({ status: 'completed', added: 1 })
		expect((await t.service.plugins.storage.connections.items(id)).map((item) => item.externalId)).toEqual([
			`${REPO}:README.md`,
		])
		expect(emulator.hooks(REPO).at(-1)?.events).toEqual(['push', 'repository'])
		const delivered = await post(emulator.delivery(REPO, 'issues', { action: 'opened' }))
		expect(delivered.status).toBe(202)
		expect(((await delivered.json()) as { accepted: number }).accepted).toBe(0)
	}, 60_000)
})
