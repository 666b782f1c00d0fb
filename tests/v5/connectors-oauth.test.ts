import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { authorizeLink } from '../../testkit/connections.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'
import { githubOnEmulator } from '../../testkit/github-service.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const REPO = 'octo/handbook'

describeEachDriver('v5 OAuth connectors (GitHub emulator)', (driver) => {
	let t: TestService
	let emulator: GithubEmulator
	let repoId: number
	let id: string

	/** The connector once a run that started at or after `since` finished. */
	async function settled(since: string) {
		const deadline = Date.now() + 45_000
		for (;;) {
			const { body } = await t.json('GET', `/ns/team_gh/connectors/${id}`)
			const run = body.latestRun
			if (run && run.system.status !== 'running' && run.system.startedAt >= since) return body
			if (Date.now() > deadline) throw new Error(`connector ${id} did not finish: ${JSON.stringify(body)}`)
			await Bun.sleep(100)
		}
	}

	beforeAll(async () => {
		emulator = startGithubEmulator()
		emulator.createRepo(REPO, {
			'README.md': '# Handbook\n\nThe team ships on Thursdays.',
			'docs/oncall.txt': 'The on-call rotation changes every Monday at 9:00.',
		})
		emulator.createRepo('octo/other', { 'README.md': '# Other\n\nNot chosen.' })
		t = await startTestService(driver, {
			...githubOnEmulator(emulator),
		})
	}, 120_000)
	afterAll(async () => {
		await t?.stop()
		emulator?.stop()
	}, 60_000)

	it('creates an OAuth connector (201 with an authorization link); completing it makes it active, in v3 too', async () => {
		const created = await t.json('POST', '/ns/team_gh/connectors', {
			provider: 'github',
			redirectUrl: 'https://app.example/connected',
			documentLimit: 50,
		})
		expect(created.status).toBe(201)
		expect(created.body).toEqual({
			id: expect.any(String),
			authorization: { url: expect.any(String), expiresAt: expect.stringMatching(/Z$/) },
		})
		id = created.body.id
		const pending = await t.json('GET', `/ns/team_gh/connectors/${id}`)
		expect(pending.body.system.status).toBe('pending_authorization')
		expect((await t.json('GET', '/ns/team_gh/connectors')).body.connectors).toEqual([])

		// The link binds the browser that opens it (a cookie the callback needs), then the emulator consents.
		const { landed } = await authorizeLink(t, created.body.authorization.url)
		expect(landed.status).toBe(302)
		expect(new URL(landed.headers.get('location')!).origin).toBe('https://app.example')

		const active = await settled('')
		expect(active).toMatchObject({
			id,
			provider: 'github',
			namespace: 'team_gh',
			account: 'octo@example.com',
			capabilities: { selectable: true, webhooks: true },
			selection: null,
			documentLimit: 50,
			system: { status: 'active' },
		})
		expect((await t.json('GET', '/ns/team_gh/connectors')).body.connectors.map((c: any) => c.id)).toEqual([id])
		const v3 = await t.json('GET', `/v3/connections/${id}`)
		expect(v3.body).toMatchObject({ id, provider: 'github', status: 'active', containerTags: ['team_gh'] })
	}, 60_000)

	it('replaces the selection with PATCH (repos by id), which syncs the chosen repository', async () => {
		const resources = (await t.json('GET', `/v3/connections/${id}/resources?page=1&per_page=10`)).body.resources
		repoId = resources.find((repo: any) => repo.full_name === REPO).id
		const since = new Date().toISOString()
		const patched = await t.json('PATCH', `/ns/team_gh/connectors/${id}`, { selection: { repos: [String(repoId)] } })
		expect(patched.status).toBe(200)
		expect(patched.body.selection).toEqual({ repos: [{ id: String(repoId), name: REPO }] })
		const synced = await settled(since)
		expect(synced.latestRun.system.status).toBe('completed')
		expect(synced.documentCount).toBe(2)
		const listed = await t.json('POST', '/ns/team_gh/list/documents', {})
		expect(listed.body.documents.map((d: any) => d.title).sort()).toEqual(['README.md', 'oncall.txt'])
	}, 60_000)

	it('refuses a selection kind the provider does not choose by, and an id the account cannot read', async () => {
		for (const selection of [
			{ labels: ['STARRED'] },
			{ repos: ['999999'] },
			{ repos: [] as string[], folders: ['x'] },
		]) {
			const answer = await t.json('PATCH', `/ns/team_gh/connectors/${id}`, { selection })
			expect([JSON.stringify(selection), answer.status]).toEqual([JSON.stringify(selection), 400])
			expect(answer.body.error).toBeString()
		}
		expect((await t.json('GET', `/ns/team_gh/connectors/${id}`)).body.selection.repos).toHaveLength(1)
	})

	it('answers 409 to a sync while a run is in progress, and 202 once it finished', async () => {
		emulator.faults.faults.timeoutOn = /^\/repos\//
		emulator.faults.faults.hangMs = 3_000
		const since = new Date().toISOString()
		expect((await t.json('POST', `/ns/team_gh/connectors/${id}/sync`)).status).toBe(202)
		const deadline = Date.now() + 20_000
		while ((await t.json('GET', `/ns/team_gh/connectors/${id}`)).body.latestRun?.system.status !== 'running') {
			if (Date.now() > deadline) throw new Error('the sync never started')
			await Bun.sleep(50)
		}
		const busy = await t.json('POST', `/ns/team_gh/connectors/${id}/sync`)
		expect(busy.status).toBe(409)
		expect(busy.body).toEqual({ error: expect.any(String), details: expect.stringContaining('already running') })
		emulator.faults.reset()
		await settled(since)
		const again = await t.json('POST', `/ns/team_gh/connectors/${id}/sync`)
		expect(again.status).toBe(202)
		expect(again.body).toEqual({ id, status: 'queued' })
	}, 90_000)

	it('answers include=picker with a link to the console chooser, open for an hour', async () => {
		const returnUrl = 'https://app.example/done?step=2'
		const got = await t.json(
			'GET',
			`/ns/team_gh/connectors/${id}?include=picker&returnUrl=${encodeURIComponent(returnUrl)}`,
		)
		expect(got.status).toBe(200)
		const link = new URL(got.body.picker.url)
		expect(`${link.origin}${link.pathname}`).toBe('http://localhost/console/')
		const [, route, expires, back] = /^#\/connections\/([^/]+)\/choose\/(\d+)\/(.+)$/.exec(link.hash)!
		expect(route).toBe(id)
		expect(decodeURIComponent(back!)).toBe(returnUrl)
		expect(new Date(got.body.picker.expiresAt).getTime()).toBe(Number(expires) * 1000)
		expect(Number(expires) * 1000 - Date.now()).toBeGreaterThan(3_500_000)
		expect((await t.json('GET', `/ns/team_gh/connectors/${id}?include=picker&returnUrl=nowhere`)).status).toBe(400)
	})

	it('keeps OAuth connectors to unrestricted keys of their organization', async () => {
		const restricted = (await t.json('POST', '/v3/keys', { name: 'gh team', containerTags: ['team_gh'] })).body.key
		const patch = { selection: { repos: [String(repoId)] } }
		expect((await t.json('PATCH', `/ns/team_gh/connectors/${id}`, patch, restricted)).status).toBe(403)
		expect((await t.json('GET', `/ns/team_gh/connectors/${id}?include=picker`, undefined, restricted)).status).toBe(403)
		expect((await t.json('POST', '/ns/team_gh/connectors', { provider: 'github' }, restricted)).status).toBe(403)
		const other = await t.createKey('gh_other_org')
		expect((await t.json('PATCH', `/ns/team_gh/connectors/${id}`, patch, other)).status).toBe(404)
		expect((await t.json('GET', `/ns/team_gh/connectors/${id}`, undefined, other)).status).toBe(404)
	})
})

describe('v5 picker without the console', () => {
	it('answers picker null when the console is not served, since the link would lead nowhere', async () => {
		const emulator = startGithubEmulator()
		emulator.createRepo(REPO, { 'README.md': '# Handbook' })
		const options = githubOnEmulator(emulator)
		const t = await startTestService('pglite', { ...options, env: { ...options.env, MEMORY_CONSOLE_ENABLED: 'off' } })
		try {
			const created = await t.json('POST', '/ns/no_console/connectors', { provider: 'github' })
			await authorizeLink(t, created.body.authorization.url)
			const got = await t.json('GET', `/ns/no_console/connectors/${created.body.id}?include=picker`)
			expect(got.status).toBe(200)
			expect(got.body.system.status).toBe('active')
			expect(got.body.picker).toBeNull()
		} finally {
			await t.stop()
			emulator.stop()
		}
	}, 120_000)
})
