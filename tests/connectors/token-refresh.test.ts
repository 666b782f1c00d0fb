import { afterAll, beforeAll, expect, it } from 'bun:test'
import { github } from '../../connectors/github/index.ts'
import { landCallback, openAuthLink } from '../../testkit/connections.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'
import { describePostgres } from '../../testkit/postgres.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describePostgres('Connector token refresh across processes (PostgreSQL)', () => {
	let emulator: GithubEmulator
	let a: TestService
	let b: TestService
	beforeAll(async () => {
		// Tokens live 30 s, under the 60 s refresh margin: every use refreshes. A refresh takes 200 ms, so two overlap,
		// and an API call takes 300 ms, so one service's call meets a token the other service's refresh has revoked.
		emulator = startGithubEmulator({ tokenLifetimeSeconds: 30, refreshDelayMs: 200, apiDelayMs: 300 })
		emulator.createRepo('octo/shared', { 'README.md': '# Shared' })
		const options = {
			env: {
				GITHUB_CLIENT_ID: emulator.clientId,
				GITHUB_CLIENT_SECRET: emulator.clientSecret,
				// Processes sharing a database share its encryption key.
				MEMORY_ENCRYPTION_KEY: 'shared-test-encryption-key',
			},
			plugins: [github({ apiUrl: emulator.url, webUrl: emulator.url })],
			extractor: null,
		}
		a = await startTestService('postgres', options)
		b = await startTestService('postgres', { ...options, role: 'api', databaseUrl: a.databaseUrl! })
	}, 180_000)
	afterAll(async () => {
		await b?.stop()
		await a?.stop()
		emulator?.stop()
	}, 60_000)

	it('two services on one database take turns: a rotated refresh token is never used twice', async () => {
		const created = await a.json('POST', '/v3/connections/github', { containerTag: 'shared' })
		const { providerUrl, cookie } = await openAuthLink(a, created.body.authLink)
		const consent = await fetch(providerUrl, { redirect: 'manual' })
		const callback = new URL(consent.headers.get('location')!)
		expect((await landCallback(a, callback, cookie)).status).toBe(200)
		const id = created.body.id as string
		for (let i = 0; i < 200; i++) {
			const run = (await a.json('GET', `/v3/connections/${id}`)).body.lastSyncRun
			if (run && run.status !== 'running') break
			await Bun.sleep(50)
		}
		const before = emulator.log.filter((line) => line === 'POST refresh').length
		const listings = await Promise.all(
			[a, b, a, b, b, a].map((service) => service.json('GET', `/v3/connections/${id}/resources`)),
		)
		expect(listings.map((listing) => listing.status)).toEqual([200, 200, 200, 200, 200, 200])
		expect(emulator.log).not.toContain('POST refresh refused')
		// A call made with a token the other service rotated away was retried with the current one.
		expect(emulator.log).toContain('GET refused')
		// Each service shares one refresh among its own callers; the two services refreshed one after the other.
		expect(emulator.log.filter((line) => line === 'POST refresh').length - before).toBeGreaterThanOrEqual(2)
		const connection = (await b.json('GET', `/v3/connections/${id}`)).body
		expect(connection.status).toBe('active')
		expect(emulator.liveGrants()).toBe(1)
	}, 90_000)
})
