import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { github } from '../../connectors/github/index.ts'
import { gmail } from '../../connectors/gmail/index.ts'
import { webCrawler } from '../../connectors/web-crawler/index.ts'
import { defineConnector } from '../../core/index.ts'
import { providerUrlOf } from '../../testkit/connections.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** A third-party OAuth connector: one declaration, nothing changed in core or the console. */
const acme = defineConnector({
	provider: 'acme-notes',
	displayName: 'Acme Notes',
	auth: {
		type: 'oauth2',
		authorizeUrl: 'https://acme.example/oauth/authorize',
		tokenUrl: 'https://acme.example/oauth/token',
		scopes: ['notes.read'],
		pkce: true,
		env: { clientId: 'ACME_CLIENT_ID', clientSecret: 'ACME_CLIENT_SECRET' },
		settingsKey: 'acmeNotes',
	},
	schedule: { everyHours: 6 },
	async *sync() {},
})

describe('registered connectors as the one list of providers', () => {
	let service: TestService
	beforeAll(async () => {
		service = await startTestService('pglite', {
			extractor: null,
			env: { GITHUB_CLIENT_ID: 'server-id', GITHUB_CLIENT_SECRET: 'server-secret' },
			plugins: [github(), gmail(), webCrawler(), acme],
		})
	})
	afterAll(() => service.stop())

	it('lists every registered connector with what the console needs to offer it', async () => {
		const { status, body } = await service.json('GET', '/v3/connections/providers')
		expect(status).toBe(200)
		const byId = Object.fromEntries(body.map((p: any) => [p.provider, p]))
		expect(Object.keys(byId).sort()).toEqual(['acme-notes', 'github', 'gmail', 'web-crawler'])
		expect(byId.gmail).toMatchObject({ displayName: 'Gmail', authType: 'oauth2', settingsKey: 'googleDrive' })
		expect(byId.github).toMatchObject({ authType: 'oauth2', settingsKey: 'github', serverAppConfigured: true })
		expect(byId['acme-notes']).toMatchObject({
			authType: 'oauth2',
			settingsKey: 'acmeNotes',
			scheduleEveryHours: 6,
			webhooks: false,
			resources: false,
			serverAppConfigured: false,
		})
		expect(byId['web-crawler']).toMatchObject({
			authType: 'none',
			fields: [{ key: 'startUrl', label: 'Start URL', secret: false }],
		})
	})

	it("accepts a third-party connector's custom application in the settings, sealed and masked", async () => {
		const patch = await service.json('PATCH', '/v3/settings', {
			acmeNotesClientId: 'org-client',
			acmeNotesClientSecret: 'org-secret-123456',
			acmeNotesCustomKeyEnabled: true,
		})
		expect(patch.status).toBe(200)
		const { body } = await service.json('GET', '/v3/settings')
		expect(body.acmeNotesClientId).toBe('org-client')
		expect(body.acmeNotesClientSecret).not.toContain('org-secret')
		expect(body.acmeNotesCustomKeyEnabled).toBe(true)
		const created = await service.json('POST', '/v3/connections/acme-notes', { containerTags: ['notes'] })
		expect(created.status).toBe(200)
		expect((await providerUrlOf(service, created.body.authLink)).searchParams.get('client_id')).toBe('org-client')
	})

	it('refuses application settings of a connector that is not registered', async () => {
		const { status, body } = await service.json('PATCH', '/v3/settings', { s3ClientId: 'x' })
		expect(status).toBe(400)
		expect(JSON.stringify(body)).toContain('s3ClientId')
	})

	it('refuses tag-restricted keys, as every connections route does', async () => {
		const restricted = await service.json('POST', '/v3/keys', { name: 'r', containerTags: ['notes'] })
		expect(restricted.status).toBe(201)
		const key: string = restricted.body.key
		expect((await service.json('GET', '/v3/settings', undefined, key)).status).toBe(403)
		expect((await service.json('GET', '/v3/connections/providers', undefined, key)).status).toBe(403)
	})
})
