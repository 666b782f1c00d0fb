import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { settingsFromEnv } from '../../core/config/settings.ts'
import { SYNC_QUEUE } from '../../core/connectors/deps.ts'
import { ConnectorAuthError, defineConnector, PLUGIN_API_VERSION } from '../../core/index.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'
import { githubOnEmulator } from '../../testkit/github-service.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/**
 * A credentials connector whose resources page carries the contract's camelCase `totalCount`; with the API key
 * `refused` it fails as a refused token refresh does (ConnectorAuthError).
 */
const counted = defineConnector<Record<string, never>, Record<string, unknown>>({
	apiVersion: PLUGIN_API_VERSION,
	kind: 'connector',
	name: 'counted',
	provider: 'counted',
	displayName: 'Counted',
	auth: { type: 'credentials', fields: [{ key: 'apiKey', label: 'API key', secret: true }] },
	schedule: { everyHours: null },
	resources: {
		list: async (ctx, query) => {
			if (ctx.credentials.apiKey === 'refused') throw new ConnectorAuthError('token refresh refused: invalid_grant')
			return { resources: [{ id: `page-${query.page}` }], totalCount: 42 }
		},
		configure: async (ctx, resources) => {
			if (ctx.credentials.apiKey === 'refused') throw new ConnectorAuthError('token refresh refused: invalid_grant')
			return { chosen: resources.length }
		},
	},
	async *sync() {},
})

/** A connector whose provider refuses every push subscription (no public HTTPS address). */
let synced = 0
const unreachable = defineConnector<Record<string, never>, Record<string, unknown>>({
	apiVersion: PLUGIN_API_VERSION,
	kind: 'connector',
	name: 'unreachable',
	provider: 'unreachable',
	displayName: 'Unreachable',
	auth: { type: 'none' },
	schedule: { everyHours: 6 },
	resources: {
		list: async () => ({ resources: [] }),
		configure: async () => ({}),
	},
	webhook: {
		routeKeys: () => [],
		verify: () => false,
		subscribe: async () => {
			throw new Error('the notification URL must be public HTTPS')
		},
	},
	async *sync() {
		synced++
		yield { type: 'upsert', document: { externalId: 'one', title: 'One', content: 'Synced without push.', url: null } }
	},
})

describe('connector runtime (in-process connectors)', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { plugins: [counted, unreachable], extractor: null })
	}, 120_000)
	afterAll(async () => {
		await t?.stop()
	}, 60_000)

	it("answers a resources page's totalCount as the API's total_count", async () => {
		const created = await t.json('POST', '/v3/connections/counted', {
			containerTag: 'counted',
			metadata: { apiKey: 'k' },
		})
		expect(created.status).toBe(200)
		const listed = await t.json('GET', `/v3/connections/${created.body.id}/resources?page=2`)
		expect(listed).toEqual({ status: 200, body: { resources: [{ id: 'page-2' }], total_count: 42 } })
	}, 60_000)

	it('answers a refused token refresh in resources and configure with a 400, and expires the connection', async () => {
		const created = await t.json('POST', '/v3/connections/counted', {
			containerTag: 'counted',
			metadata: { apiKey: 'refused' },
		})
		const id = created.body.id as string
		const listed = await t.json('GET', `/v3/connections/${id}/resources`)
		expect(listed.status).toBe(400)
		expect(listed.body.details).toContain('invalid_grant')
		expect((await t.json('GET', `/v3/connections/${id}`)).body).toMatchObject({
			status: 'expired',
			error: 'authorization expired or revoked: token refresh refused: invalid_grant',
		})
		const again = await t.json('POST', '/v3/connections/counted', {
			containerTag: 'again',
			metadata: { apiKey: 'refused' },
		})
		const configured = await t.json('POST', `/v3/connections/${again.body.id}/configure`, { resources: [] })
		expect(configured.status).toBe(400)
		expect((await t.json('GET', `/v3/connections/${again.body.id}`)).body.status).toBe('expired')
	}, 60_000)

	it('answers a webhook for a provider no connector serves with a 404 naming the served ones', async () => {
		const response = await t.request('POST', '/v3/connections/webhooks/nobody', { key: null, body: {} })
		expect(response.status).toBe(404)
		expect(((await response.json()) as { details: string }).details).toContain('known providers: counted, unreachable')
	})

	it('refuses an OAuth callback for a provider without OAuth before reading its state', async () => {
		const response = await t.request('GET', '/v3/connections/auth/callback/counted?state=x&code=y', { key: null })
		expect(response.status).toBe(400)
		expect(((await response.json()) as { details: string }).details).toBe('this provider does not use OAuth')
	})

	it('activates, schedules and syncs a connection whose provider refuses the webhook subscription', async () => {
		const since = new Date().toISOString()
		const created = await t.json('POST', '/v3/connections/unreachable', { containerTag: 'unreachable' })
		expect(created.status).toBe(200)
		const id = created.body.id as string
		const connection = await syncSettled(t, id, since)
		expect(connection).toMatchObject({ status: 'active', lastSyncRun: { status: 'completed', added: 1 } })
		expect(synced).toBeGreaterThanOrEqual(1)
		expect((await t.service.queue.scheduled(SYNC_QUEUE)).map((s) => s.key)).toContain(id)
		const configured = await t.json('POST', `/v3/connections/${id}/configure`, { resources: [] })
		expect(configured).toMatchObject({ status: 200, body: { success: true, webhooksRegistered: 0 } })
	}, 60_000)
})

describe('connector runtime: a grant refused outside a sync', () => {
	let emulator: GithubEmulator
	let t: TestService
	beforeAll(async () => {
		emulator = startGithubEmulator()
		emulator.createRepo('octo/notes', { 'README.md': '# Notes' })
		t = await startTestService('pglite', {
			...githubOnEmulator(emulator),
		})
	}, 120_000)
	afterAll(async () => {
		await t?.stop()
		emulator?.stop()
	}, 60_000)

	it('answers resources and configure with a 400 when the provider says 401, and expires the connection as a sync would', async () => {
		const since = new Date().toISOString()
		const { created, landed } = await authorizeThroughEmulator(t, 'github', { containerTag: 'refused' })
		expect(landed.status).toBe(200)
		const id = created.body.id as string
		await syncSettled(t, id, since)
		expect((await t.service.queue.scheduled(SYNC_QUEUE)).map((s) => s.key)).toContain(id)
		emulator.revokeAll()

		const listed = await t.json('GET', `/v3/connections/${id}/resources`)
		expect(listed.status).toBe(400)
		expect(listed.body.details).toContain('authorize it again')
		const connection = (await t.json('GET', `/v3/connections/${id}`)).body
		expect(connection.status).toBe('expired')
		expect(connection.error).toContain('authorization expired or revoked')
		expect((await t.service.queue.scheduled(SYNC_QUEUE)).map((s) => s.key)).not.toContain(id)
		const configured = await t.json('POST', `/v3/connections/${id}/configure`, {
			resources: [{ full_name: 'octo/notes', defaultBranch: 'main' }],
		})
		expect(configured.status).toBe(400)
	}, 60_000)
})

describe('connector runtime settings', () => {
	it('reads MEMORY_WEBHOOK_DEBOUNCE_SECONDS as whole seconds (60 unset) and refuses anything else at startup', () => {
		expect(settingsFromEnv({}).webhookDebounceSeconds).toBe(60)
		expect(settingsFromEnv({ MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0' }).webhookDebounceSeconds).toBe(0)
		expect(() => settingsFromEnv({ MEMORY_WEBHOOK_DEBOUNCE_SECONDS: 'soon' })).toThrow(
			'MEMORY_WEBHOOK_DEBOUNCE_SECONDS',
		)
	})
})
