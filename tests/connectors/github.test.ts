import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { github } from '../../connectors/github/index.ts'
import type { GithubSettings } from '../../connectors/github/options.ts'
import { sealState } from '../../core/connectors/state.ts'
import {
	authorizeThroughEmulator,
	landCallback,
	openAuthLink,
	providerUrlOf,
	syncSettled,
} from '../../testkit/connections.ts'
import { syncHarness } from '../../testkit/connector-context.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const REPO = 'octo/handbook'
const FILES = {
	'README.md': '# Handbook\n\nThe team ships on Thursdays.',
	'docs/onboarding.md': '# Onboarding\n\nNew engineers pair for their first two weeks.',
	'docs/oncall.txt': 'The on-call rotation changes every Monday at 9:00.',
	'src/index.ts': 'export const answer = 42\n',
	'logo.png': 'not really a png',
}
const DOC_FILES = ['README.md', 'docs/onboarding.md', 'docs/oncall.txt']

/** A service with the GitHub connector pointed at the emulator, and helpers to walk a connection through OAuth. */
async function harness(driver: 'pglite' | 'postgres', emulator: GithubEmulator) {
	const t = await startTestService(driver, {
		env: {
			GITHUB_CLIENT_ID: emulator.clientId,
			GITHUB_CLIENT_SECRET: emulator.clientSecret,
			MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
		},
		plugins: [github({ apiUrl: emulator.url, webUrl: emulator.url })],
		extractor: null,
	})
	const settled = (id: string, since: string, key = t.key) => syncSettled(t, id, since, key)
	/** Creates a connection and completes the OAuth flow through the emulator; returns its id. */
	const connect = async (body: Record<string, unknown> = {}, key = t.key) => {
		const { created, callback, landed, cookie } = await authorizeThroughEmulator(
			t,
			'github',
			{ containerTag: 'team', redirectUrl: 'https://app.example/connected', ...body },
			key,
		)
		expect(landed.status).toBe(302)
		const target = new URL(landed.headers.get('location')!)
		expect(target.searchParams.get('error')).toBeNull()
		const id = created.body.id as string
		// The first sync (nothing chosen yet) runs at once; later runs then start from a known state.
		await settled(id, '', key)
		return { id, callback, cookie, created: created.body }
	}
	const configure = async (id: string, key = t.key) => {
		const since = new Date().toISOString()
		const configured = await t.json(
			'POST',
			`/v3/connections/${id}/configure`,
			{ resources: [{ id: 1, full_name: REPO, defaultBranch: 'main' }] },
			key,
		)
		expect(configured).toMatchObject({ status: 200 })
		return { configured: configured.body, connection: await settled(id, since, key) }
	}
	const items = (id: string) => t.service.plugins.storage.connections.items(id)
	return { t, connect, settled, configure, items }
}

describeEachDriver('GitHub connector', (driver) => {
	let emulator: GithubEmulator
	let h: Awaited<ReturnType<typeof harness>>
	let t: TestService
	beforeAll(async () => {
		emulator = startGithubEmulator({ tokenLifetimeSeconds: 30 })
		emulator.createRepo(REPO, FILES)
		h = await harness(driver, emulator)
		t = h.t
	}, 180_000)
	afterAll(async () => {
		await t.stop()
		emulator.stop()
	}, 60_000)

	it('authorizes through OAuth with PKCE, lists repositories and imports their documentation', async () => {
		const { id, created, callback } = await h.connect()
		expect(created.expiresIn).toBe('1 hour')
		expect(created.redirectsTo).toBe('https://app.example/connected')
		const link = await providerUrlOf(t, created.authLink)
		expect(link.searchParams.get('code_challenge_method')).toBe('S256')
		expect(link.searchParams.get('prompt')).toBe('select_account')
		expect(link.searchParams.get('redirect_uri')).toBe('http://localhost/v3/connections/auth/callback/github')
		expect(callback.searchParams.get('code')).toBeTruthy()

		const connection = (await t.json('GET', `/v3/connections/${id}`)).body
		expect(connection).toMatchObject({ id, provider: 'github', status: 'active', email: 'octo@example.com' })
		expect(connection.containerTags).toEqual(['team'])

		const resources = await t.json('GET', `/v3/connections/${id}/resources?page=1&per_page=10`)
		expect(resources.status).toBe(200)
		expect(resources.body.resources).toEqual([expect.objectContaining({ full_name: REPO, default_branch: 'main' })])

		const { configured, connection: synced } = await h.configure(id)
		expect(configured).toMatchObject({ success: true, webhooksRegistered: 1 })
		expect(emulator.hooks(REPO)[0]?.url).toBe(`http://localhost/v3/connections/webhooks/github?connection=${id}`)
		expect(synced.lastSyncRun).toMatchObject({ status: 'completed', added: 3, failed: 0 })
		expect((await h.items(id)).map((item) => item.externalId)).toEqual(DOC_FILES.map((f) => `${REPO}:${f}`).sort())

		const imported = await t.json('POST', '/v3/connections/github/documents', { containerTags: ['team'] })
		expect(imported.status).toBe(200)
		expect(imported.body).toHaveLength(3)
		const readme = imported.body.find((doc: { title: string }) => doc.title === 'README.md')
		const done = await t.waitForStatus(readme.id)
		expect(done.status).toBe('done')
		expect(done.containerTag).toBe('team')
		expect(done.connectionId).toBe(id)
		expect(done.metadata).toMatchObject({
			provider: 'github',
			externalId: `${REPO}:README.md`,
			url: `${emulator.url}/${REPO}/blob/main/README.md`,
			repository: REPO,
			path: 'README.md',
		})
		// Access tokens live 30 s here, so every use refreshed them; each refresh rotated the refresh token.
		expect(emulator.log.filter((line) => line === 'POST refresh').length).toBeGreaterThan(0)
		const search = await t.json('POST', '/v3/search', { q: 'when does the team ship', containerTag: 'team' })
		expect(search.body.results[0]?.documentId).toBe(readme.id)
	}, 60_000)

	it('names the account by its primary verified email when the user shows no public one (user:email)', async () => {
		emulator.hideEmail('octo')
		const { id } = await h.connect()
		expect((await t.json('GET', `/v3/connections/${id}`)).body.email).toBe('octo@example.com')
	})

	it('syncs incrementally by commit comparison: changed files update, removed files are deleted', async () => {
		const { id } = await h.connect({ containerTag: 'incremental' })
		await h.configure(id)
		const readme = (await h.items(id)).find((item) => item.externalId === `${REPO}:README.md`)!
		const oncall = (await h.items(id)).find((item) => item.externalId === `${REPO}:docs/oncall.txt`)!
		emulator.commit(REPO, {
			'README.md': '# Handbook\n\nThe team ships on Tuesdays now.',
			'docs/oncall.txt': null,
			'docs/new.md': '# New\n\nA new page.',
		})
		const blobsBefore = emulator.blobReads()
		const since = new Date().toISOString()
		const started = await t.request('POST', '/v3/connections/github/import', {
			body: { containerTags: ['incremental'] },
			headers: { accept: 'text/plain' },
		})
		expect(started.status).toBe(202)
		expect(started.headers.get('content-type')).toStartWith('text/plain')
		const after = await h.settled(id, since)
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', added: 1, updated: 1, deleted: 1 })
		expect(emulator.log.some((line) => line.includes('/compare/'))).toBe(true)
		expect(emulator.blobReads() - blobsBefore).toBe(2)
		expect((await t.json('GET', `/v3/documents/${oncall.documentId}`)).status).toBe(404)
		const updated = await t.waitForStatus(readme.documentId)
		expect(updated.content).toContain('Tuesdays')

		// Nothing changed since: a re-sync changes nothing.
		const before = (await t.json('GET', `/v3/documents/${readme.documentId}`)).body
		const quiet = new Date().toISOString()
		await t.request('POST', '/v3/connections/github/import', { body: { containerTags: ['incremental'] } })
		const again = await h.settled(id, quiet)
		expect(again.lastSyncRun).toMatchObject({ status: 'completed', added: 0, updated: 0, deleted: 0 })
		expect((await t.json('GET', `/v3/documents/${readme.documentId}`)).body.updatedAt).toBe(before.updatedAt)
	}, 60_000)

	it('verifies push webhooks: a signed push syncs; forged or unsigned ones get 401, a replay 202, and none starts a sync', async () => {
		const { id } = await h.connect({ containerTag: 'hooks' })
		await h.configure(id)
		const post = (delivery: { body: string; headers: Record<string, string> }) =>
			t.request('POST', '/v3/connections/webhooks/github', {
				body: delivery.body,
				headers: delivery.headers,
				key: null,
			})
		const runs = async () => (await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns.length

		const count = await runs()
		const forged = await post(emulator.pushDelivery(REPO, { secret: 'not the secret' }))
		expect(forged.status).toBe(401)
		expect(((await forged.json()) as any).error).toBe('Webhook refused')
		const unsigned = emulator.pushDelivery(REPO)
		delete (unsigned.headers as Record<string, string | undefined>)['x-hub-signature-256']
		expect((await post(unsigned)).status).toBe(401)
		await Bun.sleep(1500)
		expect(await runs()).toBe(count)

		emulator.commit(REPO, { 'docs/webhook.md': '# Pushed\n\nArrived by webhook.' })
		const delivery = emulator.pushDelivery(REPO)
		const since = new Date().toISOString()
		const accepted = await post(delivery)
		expect(accepted.status).toBe(202)
		expect(((await accepted.json()) as any).accepted).toBeGreaterThanOrEqual(1)
		const synced = await h.settled(id, since)
		expect(synced.lastSyncRun.trigger).toBe('webhook')
		expect((await h.items(id)).some((item) => item.externalId === `${REPO}:docs/webhook.md`)).toBe(true)

		const replayed = await post(delivery)
		// A verified duplicate is acknowledged (a provider redelivers anything else) and starts nothing.
		expect(replayed.status).toBe(202)
		expect(await replayed.json()).toEqual({ accepted: 0 })
		// The delivery id is not signed: the same signed body under a new one is the same delivery, and starts nothing.
		const renamed = await post({
			...delivery,
			headers: { ...delivery.headers, 'x-github-delivery': crypto.randomUUID() },
		})
		expect(renamed.status).toBe(202)
		expect(await renamed.json()).toEqual({ accepted: 0 })
	}, 60_000)

	it("looks a signed delivery's hook up once, before its body is read", async () => {
		const { id } = await h.connect({ containerTag: 'hooks-once' })
		await h.configure(id)
		const connections = t.service.plugins.storage.connections
		const lookUp = connections.subscriptionsByRoutes
		let lookups = 0
		connections.subscriptionsByRoutes = (...args) => {
			lookups++
			return lookUp.apply(connections, args)
		}
		try {
			emulator.commit(REPO, { 'docs/once.md': '# Once' })
			const delivery = emulator.pushDelivery(REPO)
			const answer = await t.request('POST', '/v3/connections/webhooks/github', {
				body: delivery.body,
				headers: delivery.headers,
				key: null,
			})
			expect(answer.status).toBe(202)
			expect(((await answer.json()) as { accepted: number }).accepted).toBeGreaterThanOrEqual(1)
			expect(lookups).toBe(1)
		} finally {
			connections.subscriptionsByRoutes = lookUp
		}
	}, 60_000)

	it('records a file it cannot read as a failure and imports the rest', async () => {
		const big = 'big/'.padEnd(2 * 1024 * 1024, 'x')
		emulator.createRepo('octo/large', { 'huge.md': big, 'small.md': '# Small\n\nFits.' })
		const { id } = await h.connect({ containerTag: 'large' })
		const since = new Date().toISOString()
		await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ full_name: 'octo/large' }] })
		const connection = await h.settled(id, since)
		expect(connection.lastSyncRun).toMatchObject({ status: 'completed', added: 1, failed: 1 })
		const failures = await t.json('GET', `/v3/connections/${id}/sync-runs/${connection.lastSyncRun.id}/failures`)
		expect(failures.body.failures).toEqual([
			expect.objectContaining({
				externalId: 'octo/large:huge.md',
				error: expect.stringContaining('GITHUB_FILE_TOO_LARGE'),
			}),
		])
		// A file that can never be read casts no doubt on a listing: a reset still deletes what it discarded.
		const first = emulator.head('octo/large')
		emulator.commit('octo/large', { 'discarded.md': '# Discarded\n\nOnly in the commit reset away.' })
		const pushed = new Date().toISOString()
		await t.request('POST', '/v3/connections/github/import', { body: { containerTags: ['large'] } })
		await h.settled(id, pushed)
		expect((await h.items(id)).map((item) => item.externalId)).toContain('octo/large:discarded.md')
		emulator.forcePush('octo/large', first)
		const reset = new Date().toISOString()
		await t.request('POST', '/v3/connections/github/import', { body: { containerTags: ['large'] } })
		const after = await h.settled(id, reset)
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', deleted: 1 })
		expect((await h.items(id)).map((item) => item.externalId)).toEqual(['octo/large:small.md'])
	}, 60_000)

	it('deletes a connection with its documents by default, or keeps them detached with deleteDocuments=false', async () => {
		const first = await h.connect({ containerTag: 'gone' })
		await h.configure(first.id)
		const firstDocs = (await h.items(first.id)).map((item) => item.documentId)
		const hooks = emulator.hooks(REPO).length
		const deleted = await t.json('DELETE', `/v3/connections/${first.id}`)
		expect(deleted).toEqual({ status: 200, body: { id: first.id, provider: 'github' } })
		expect(emulator.log.at(-1)).toBe('DELETE grant')
		expect(emulator.hooks(REPO)).toHaveLength(hooks - 1)
		for (const doc of firstDocs) expect((await t.json('GET', `/v3/documents/${doc}`)).status).toBe(404)
		expect((await t.json('GET', `/v3/connections/${first.id}`)).status).toBe(404)

		const second = await h.connect({ containerTag: 'kept' })
		await h.configure(second.id)
		const secondDocs = (await h.items(second.id)).map((item) => item.documentId)
		const kept = await t.json('DELETE', `/v3/connections/${second.id}?deleteDocuments=false`)
		expect(kept.status).toBe(200)
		for (const doc of secondDocs) {
			const { status, body } = await t.json('GET', `/v3/documents/${doc}`)
			expect(status).toBe(200)
			expect(body.connectionId).toBeNull()
		}

		const third = await h.connect({ containerTags: ['by-tag'] })
		const byProvider = await t.json('DELETE', '/v3/connections/github', { containerTags: ['by-tag'] })
		expect(byProvider.body).toEqual({ id: third.id, provider: 'github' })
		expect((await t.json('DELETE', '/v3/connections/github', { containerTags: ['by-tag'] })).status).toBe(404)
	}, 60_000)

	it('refuses a callback whose state was sealed for another organization, forged, expired or used already', async () => {
		const other = await t.createKey(`Other ${driver}`)
		// A state sealed for another organization (or a forged, used or expired one) is refused and stores nothing.
		const otherOrg = (await t.json('GET', '/v3/usage', undefined, other)).body.orgId
		const secrets = t.service.services.connectorDeps.secrets
		const pending = await t.json('POST', '/v3/connections/github', { containerTag: 'pending' })
		const baseUrl = 'http://localhost'
		const nonce = (await providerUrlOf(t, pending.body.authLink)).searchParams.get('state')!
		const state = (over: Record<string, unknown>) =>
			sealState(secrets, {
				orgId: otherOrg,
				connectionId: pending.body.id,
				provider: 'github',
				nonce,
				expiresAt: Date.now() + 60_000,
				baseUrl,
				...over,
			})
		const callback = (query: string) => t.request('GET', `/v3/connections/auth/callback/github?${query}`, { key: null })
		for (const query of [
			`code=x&state=${state({})}`,
			'code=x&state=forged',
			'code=x',
			`code=x&state=${state({ expiresAt: Date.now() - 1 })}`,
		]) {
			const refused = await callback(query)
			expect(refused.status).toBe(400)
			expect(((await refused.json()) as any).error).toBeTruthy()
		}
		expect((await t.json('GET', `/v3/connections/${pending.body.id}`)).body.status).toBe('pending')
		const { callback: used, cookie } = await h.connect({ containerTag: 'once' })
		const again = await landCallback(t, used, cookie)
		expect(again.status).toBe(400)
		expect(((await again.json()) as any).details).toContain('already used')
	}, 60_000)

	it("completes an authorization only in the browser that opened its link, never in another one's", async () => {
		// Another organization creates a connection and hands its link's provider step to a victim, whose GitHub
		// consents at once (the emulator does, as GitHub does for an application the user already authorized).
		const other = await t.createKey('github-capture')
		const created = await t.json('POST', '/v3/connections/github', { containerTag: 'loot' }, other)
		const { providerUrl, cookie } = await openAuthLink(t, created.body.authLink)
		expect(cookie).toMatch(/^sm_oauth_/)
		const consent = await fetch(providerUrl, { redirect: 'manual' })
		const callback = new URL(consent.headers.get('location')!)
		for (const foreign of [null, `${cookie.split('=')[0]}=forged`, `sm_oauth_other=${cookie.split('=')[1]}`]) {
			const refused = await landCallback(t, callback, foreign)
			expect(refused.status).toBe(400)
			expect(((await refused.json()) as { details: string }).details).toContain('started in another browser')
		}
		const still = await t.json('GET', `/v3/connections/${created.body.id}`, undefined, other)
		expect(still.body).toMatchObject({ status: 'pending', email: null })
		expect((await t.json('GET', `/v3/connections/${created.body.id}/resources`, undefined, other)).status).not.toBe(200)
		// The browser that opened the link still finishes, once, and its cookie is cleared.
		const landed = await landCallback(t, callback, cookie)
		expect(landed.status).toBe(200)
		expect(landed.headers.get('set-cookie')).toContain('Max-Age=0')
		const started = await t.request(
			'GET',
			new URL(created.body.authLink).pathname + new URL(created.body.authLink).search,
			{
				key: null,
			},
		)
		expect(started.headers.get('set-cookie')).toContain('HttpOnly')
		expect(started.headers.get('set-cookie')).toContain('SameSite=Lax')
		expect(started.headers.get('set-cookie')).toContain('Path=/v3/connections/auth/callback/github')
		for (const link of ['forged', created.body.authLink.split('link=')[1].slice(0, -4)]) {
			const refused = await t.request('GET', `/v3/connections/auth/start/github?link=${link}`, { key: null })
			expect(refused.status).toBe(400)
		}
	}, 60_000)

	it('refuses bad input with 4xx JSON: unknown provider, bad tags and limits, no OAuth application', async () => {
		const unknown = await t.json('POST', '/v3/connections/dropbox', {})
		expect(unknown.status).toBe(404)
		expect(unknown.body.details).toContain('known providers: github')
		const badTag = await t.json('POST', '/v3/connections/github', { containerTag: 'bad tag!' })
		expect(badTag.status).toBe(400)
		expect(badTag.body.details).toContain('containerTag')
		for (const documentLimit of [0, 10_001, 2.5]) {
			const bad = await t.json('POST', '/v3/connections/github', { documentLimit })
			expect(bad.status).toBe(400)
			expect(bad.body.details).toContain('documentLimit')
		}
		const listed = (await t.json('POST', '/v3/connections/list', {})).body.length
		const bare = await startTestService(driver, { plugins: [github({ apiUrl: emulator.url, webUrl: emulator.url })] })
		try {
			const refused = await bare.json('POST', '/v3/connections/github', { containerTag: 'x' })
			expect(refused.status).toBe(400)
			expect(refused.body.details).toContain('GITHUB_CLIENT_ID')
			expect(refused.body.details).toContain('githubClientId')
			expect((await bare.json('POST', '/v3/connections/list', {})).body).toEqual([])
		} finally {
			await bare.stop()
		}
		expect((await t.json('POST', '/v3/connections/list', {})).body.length).toBe(listed)
	}, 90_000)
})

describe('GitHub connector: tokens', () => {
	it('asks core for the token at each request, so a token that lapses mid-sync is replaced, not failed as revoked', async () => {
		// GitHub App user tokens: here they live one second, and each blob read takes 400 ms.
		const emulator = startGithubEmulator({ tokenLifetimeSeconds: 1, blobDelayMs: 400 })
		try {
			emulator.createRepo('octo/long', { 'a.md': '# A', 'b.md': '# B', 'c.md': '# C', 'd.md': '# D' })
			const connector = github({ apiUrl: emulator.url, webUrl: emulator.url, readConcurrency: 1 })
			const h = syncHarness<GithubSettings>({
				settings: {
					repositories: [{ id: 1, fullName: 'octo/long', defaultBranch: 'main' }],
					includeCode: false,
					includeIssues: false,
				},
			})
			// As core does: the token in hand until it is about to lapse, then a fresh one.
			let token = emulator.accessToken()
			let issuedAt = Date.now()
			h.ctx.accessToken = async () => {
				if (Date.now() - issuedAt > 500) [token, issuedAt] = [emulator.accessToken(), Date.now()]
				return token
			}
			await h.run((ctx, cursor) => connector.sync(ctx, cursor as never))
			expect([...h.documents.keys()].sort()).toEqual(['a.md', 'b.md', 'c.md', 'd.md'].map((f) => `octo/long:${f}`))
		} finally {
			emulator.stop()
		}
	}, 30_000)
})

describe('GitHub connector: disconnecting', () => {
	it('revokes the whole grant, its refresh token too, also once the stored access token lapsed', async () => {
		// GitHub App user tokens that live two seconds: by the disconnect the stored one has lapsed.
		const emulator = startGithubEmulator({ tokenLifetimeSeconds: 2 })
		emulator.createRepo(REPO, FILES)
		const h = await harness('pglite', emulator)
		try {
			const { id } = await h.connect()
			expect(emulator.liveRefreshTokens()).toBe(1)
			await Bun.sleep(2_100)
			expect((await h.t.json('DELETE', `/v3/connections/${id}`)).status).toBe(200)
			expect(emulator.log).toContain('DELETE grant')
			expect(emulator.liveRefreshTokens()).toBe(0)
			expect(emulator.liveGrants()).toBe(0)
		} finally {
			await h.t.stop()
			emulator.stop()
		}
	}, 60_000)
})
