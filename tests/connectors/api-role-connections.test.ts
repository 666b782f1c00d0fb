import { afterAll, beforeAll, expect, it } from 'bun:test'
import { SYNC_QUEUE } from '../../core/connectors/deps.ts'
import { authorizeThroughEmulator } from '../../testkit/connections.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'
import { githubOnEmulator } from '../../testkit/github-service.ts'
import { describePostgres } from '../../testkit/postgres.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describePostgres('an API-only process on a database no worker has started on', () => {
	let emulator: GithubEmulator
	let t: TestService
	beforeAll(async () => {
		emulator = startGithubEmulator()
		t = await startTestService('postgres', {
			role: 'api',
			...githubOnEmulator(emulator),
		})
	}, 120_000)
	afterAll(async () => {
		await t.stop()
		emulator.stop()
	})

	it("completes an authorization: the connection's schedule and first sync are queued", async () => {
		const { created, landed } = await authorizeThroughEmulator(t, 'github', {
			containerTag: 'api-only',
			redirectUrl: 'https://app.example/done',
		})
		expect(landed.status).toBe(302)
		expect(new URL(landed.headers.get('location')!).searchParams.get('error')).toBeNull()
		const connection = await t.json('GET', `/v3/connections/${created.body.id}`)
		expect(connection.body.status).toBe('active')
		expect((await t.service.queue.scheduled(SYNC_QUEUE)).map((schedule) => schedule.key)).toContain(created.body.id)
	}, 60_000)
})
