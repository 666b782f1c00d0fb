import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
	type ConnectorPlugin,
	defineConnector,
	PLUGIN_API_VERSION,
	providerFetch,
	type Subscription,
} from '../../core/index.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/**
 * A small OAuth provider: consent redirects back at once, granting `granted` scopes (all asked when null); access
 * tokens can be refused; refreshes and revocations are counted. One grant per account and application, revoked
 * whole, as Google does.
 */
function oauthProvider() {
	const state = {
		granted: null as string[] | null,
		account: 'acct-1',
		refuseTokens: new Set<string>(),
		refuseRefresh: false,
		refreshes: 0,
		revoked: [] as string[],
		issued: 0,
		unsubscribed: [] as string[],
		subscribeRefuses: new Set<string>(),
	}
	const server = Bun.serve({
		port: 0,
		async fetch(request) {
			const url = new URL(request.url)
			if (url.pathname === '/authorize') {
				const back = new URL(url.searchParams.get('redirect_uri')!)
				back.searchParams.set('code', `code-${state.account}`)
				back.searchParams.set('state', url.searchParams.get('state')!)
				return Response.redirect(back.toString(), 302)
			}
			if (url.pathname === '/token') {
				const form = new URLSearchParams(await request.text())
				if (form.get('grant_type') === 'refresh_token') {
					if (state.refuseRefresh) return Response.json({ error: 'invalid_grant' }, { status: 400 })
					state.refreshes++
				}
				const scope = state.granted ?? ['docs.read', 'mail.read']
				return Response.json({
					access_token: `at-${state.account}-${++state.issued}`,
					refresh_token: `rt-${state.account}`,
					token_type: 'Bearer',
					expires_in: 3600,
					scope: scope.join(' '),
				})
			}
			if (url.pathname === '/revoke') {
				state.revoked.push(new URLSearchParams(await request.text()).get('token')!)
				return new Response(null, { status: 200 })
			}
			if (url.pathname === '/me') {
				const token = request.headers.get('authorization')!.slice('Bearer '.length)
				return Response.json({ email: `${token.split('-')[1]}@example.com`, id: token.split('-')[1] })
			}
			if (url.pathname === '/items') {
				const token = request.headers.get('authorization')?.slice('Bearer '.length) ?? ''
				if (state.refuseTokens.has(token)) return new Response('{"error":"invalid_token"}', { status: 401 })
				return Response.json({ items: [{ id: 'one', text: 'The first item.' }] })
			}
			return new Response('not found', { status: 404 })
		},
	})
	return { url: `http://127.0.0.1:${server.port}`, state, stop: () => server.stop(true) }
}

const provider = oauthProvider()

/** An OAuth connector of the test provider; Docs and Mail share one grant group, as Drive and Gmail do. */
function oauthConnector(id: string, group: string | undefined): ConnectorPlugin {
	return defineConnector({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: id,
		provider: id,
		displayName: id,
		auth: {
			type: 'oauth2',
			authorizeUrl: `${provider.url}/authorize`,
			tokenUrl: `${provider.url}/token`,
			revokeUrl: `${provider.url}/revoke`,
			scopes: ['docs.read', 'mail.read'],
			requiredScopes: ['docs.read'],
			pkce: false,
			env: { clientId: 'OA_CLIENT_ID', clientSecret: 'OA_CLIENT_SECRET' },
			...(group ? { grantGroup: group } : {}),
			async identity(tokens) {
				const me = (await (
					await fetch(`${provider.url}/me`, { headers: { authorization: `Bearer ${tokens.accessToken}` } })
				).json()) as { email: string; id: string }
				return { email: me.email, accountId: me.id }
			},
		},
		schedule: { everyHours: null },
		webhook: {
			routeKeys: (request) => [request.headers.get('x-route') ?? ''],
			verify: (request, secret) => request.headers.get('x-signature') === secret,
			deliveryId: (request) => request.headers.get('x-delivery'),
			verifyWithoutSubscription: async (request) => request.headers.get('x-provider-token') === 'signed-by-provider',
			async subscribe(_ctx, { secret }) {
				const made: Subscription[] = []
				const failures = []
				for (const scope of ['alpha', 'beta']) {
					if (provider.state.subscribeRefuses.has(scope)) failures.push({ scope, error: `${scope} answered 404` })
					else
						made.push({ externalId: `${id}-${scope}`, routeKey: `${id}-${scope}`, expiresAt: null, data: { secret } })
				}
				return { subscriptions: made, failures }
			},
			async unsubscribe(_ctx, subscription) {
				provider.state.unsubscribed.push(subscription.externalId)
			},
		},
		async *sync(ctx) {
			const answer = await ctx.withToken(async (token) => {
				const res = await providerFetch(`${provider.url}/items`, {
					headers: { authorization: `Bearer ${token}` },
					policy: { limitKey: ctx.connectionId, signal: ctx.signal },
				})
				return (await res.json()) as { items: { id: string; text: string }[] }
			})
			for (const item of answer.items) {
				yield { type: 'upsert', document: { externalId: item.id, title: item.id, content: item.text, url: null } }
			}
		},
	})
}

let t: TestService
beforeAll(async () => {
	t = await startTestService('pglite', {
		plugins: [oauthConnector('oa-docs', 'oa'), oauthConnector('oa-mail', 'oa'), oauthConnector('oa-solo', undefined)],
		extractor: null,
		env: { OA_CLIENT_ID: 'client-1', OA_CLIENT_SECRET: 'secret-1' },
	})
}, 120_000)
afterAll(async () => {
	await t?.stop()
	provider.stop()
}, 60_000)

async function connect(providerId: string, tag: string) {
	const since = new Date().toISOString()
	const { created, landed } = await authorizeThroughEmulator(t, providerId, { containerTag: tag })
	const id = created.body.id as string
	return { id, landed, connection: landed.status < 400 ? await syncSettled(t, id, since) : null }
}

describe('OAuth grants in core', () => {
	it('refuses an authorization that did not grant a required scope, naming it, and activates nothing', async () => {
		provider.state.granted = ['mail.read']
		try {
			const { id } = await connect('oa-docs', 'partial')
			const connection = (await t.json('GET', `/v3/connections/${id}`)).body
			expect(connection.status).toBe('error')
			expect(connection.error).toContain('docs.read')
			expect(connection.lastSyncRun).toBeNull()
		} finally {
			provider.state.granted = null
		}
	}, 60_000)

	it('refreshes once on a 401 and goes on; a refused refresh expires the connection', async () => {
		const { id, connection } = await connect('oa-docs', 'refresh')
		expect(connection!.lastSyncRun).toMatchObject({ status: 'completed', added: 1 })
		const before = provider.state.refreshes
		provider.state.refuseTokens.add(`at-acct-1-${provider.state.issued}`)
		const since = new Date().toISOString()
		await t.request('POST', '/v3/connections/oa-docs/import', { body: { containerTags: ['refresh'] } })
		const again = await syncSettled(t, id, since)
		expect(again).toMatchObject({ status: 'active', lastSyncRun: { status: 'completed' } })
		expect(provider.state.refreshes - before).toBe(1)

		provider.state.refuseTokens.add(`at-acct-1-${provider.state.issued}`)
		provider.state.refuseRefresh = true
		try {
			const later = new Date().toISOString()
			await t.request('POST', '/v3/connections/oa-docs/import', { body: { containerTags: ['refresh'] } })
			const refused = await syncSettled(t, id, later)
			expect(refused).toMatchObject({ status: 'expired', lastSyncRun: { errorCode: 'auth_expired' } })
		} finally {
			provider.state.refuseRefresh = false
		}
	}, 60_000)

	it('revokes a grant only when no other live connection of the same account and application holds it', async () => {
		provider.state.account = 'acct-shared'
		const docs = await connect('oa-docs', 'shared-docs')
		const mail = await connect('oa-mail', 'shared-mail')
		const revokedBefore = provider.state.revoked.length
		expect((await t.json('DELETE', `/v3/connections/${docs.id}`)).status).toBe(200)
		expect(provider.state.revoked.length).toBe(revokedBefore)
		expect((await t.json('GET', `/v3/connections/${mail.id}`)).body.status).toBe('active')
		expect((await t.json('DELETE', `/v3/connections/${mail.id}`)).status).toBe(200)
		expect(provider.state.revoked.length).toBe(revokedBefore + 1)

		// A connector of another grant group does not hold that grant.
		const solo = await connect('oa-solo', 'shared-solo')
		await connect('oa-docs', 'shared-docs-2')
		expect((await t.json('DELETE', `/v3/connections/${solo.id}`)).status).toBe(200)
		expect(provider.state.revoked.length).toBe(revokedBefore + 2)
		provider.state.account = 'acct-1'
	}, 60_000)
})

describe('webhook acknowledgement', () => {
	const deliver = (headers: Record<string, string>) =>
		t.request('POST', '/v3/connections/webhooks/oa-docs', { key: null, body: '{}', headers })

	it('stores the subscriptions of the scopes that worked when another scope refuses', async () => {
		provider.state.account = 'acct-hooks'
		provider.state.subscribeRefuses.add('beta')
		try {
			const { id } = await connect('oa-docs', 'hooks')
			const subscriptions = await t.service.services.connectorDeps.storage.connections.subscriptions(id)
			expect(subscriptions.map((subscription) => subscription.externalId)).toEqual(['oa-docs-alpha'])
		} finally {
			provider.state.subscribeRefuses.clear()
			provider.state.account = 'acct-1'
		}
	}, 60_000)

	it('acknowledges a verified duplicate and a verified delivery for a gone subscription; refuses forged ones', async () => {
		const { id } = await connect('oa-docs', 'acks')
		const [subscription] = await t.service.services.connectorDeps.storage.connections.subscriptions(id)
		const secret = t.service.services.connectorDeps.secrets.open(subscription!.secret)
		const signed = { 'x-route': subscription!.routeKey, 'x-signature': secret, 'x-delivery': 'd-1' }
		const first = await deliver(signed)
		expect(first.status).toBe(202)
		expect(await first.json()).toEqual({ accepted: 1 })
		const duplicate = await deliver(signed)
		expect(duplicate.status).toBe(202)
		expect(await duplicate.json()).toEqual({ accepted: 0 })
		expect((await deliver({ ...signed, 'x-signature': 'forged', 'x-delivery': 'd-2' })).status).toBe(401)
		const gone = { 'x-route': 'no-such-subscription', 'x-delivery': 'd-3' }
		expect((await deliver({ ...gone, 'x-provider-token': 'signed-by-provider' })).status).toBe(202)
		expect((await deliver({ ...gone, 'x-provider-token': 'forged' })).status).toBe(401)
	}, 60_000)

	it("stops an expired connection's subscriptions when it is deleted", async () => {
		provider.state.account = 'acct-expired'
		const { id } = await connect('oa-docs', 'expired-hooks')
		await t.service.services.connectorDeps.storage.connections.update(id, { status: 'expired' })
		provider.state.unsubscribed.length = 0
		expect((await t.json('DELETE', `/v3/connections/${id}`)).status).toBe(200)
		expect(provider.state.unsubscribed.sort()).toEqual(['oa-docs-alpha', 'oa-docs-beta'])
		provider.state.account = 'acct-1'
	}, 60_000)
})
