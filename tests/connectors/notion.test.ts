import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { notion } from '../../connectors/notion/index.ts'
import { createLogger, type Logger } from '../../core/index.ts'
import { authorizeThroughEmulator, providerUrlOf, syncSettled } from '../../testkit/connections.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { block, type NotionEmulator, startNotionEmulator } from '../../testkit/emulators/notion.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const VERIFICATION_TOKEN = 'secret_verification_token_from_notion'

/** A logger that keeps warnings (the webhook handshake shows its token there) and drops the rest. */
function keepingLogger() {
	const warnings: { message: string; fields?: Record<string, unknown> }[] = []
	const quiet = createLogger('silent')
	const logger: Logger = { ...quiet, warn: (message, fields) => warnings.push({ message, fields }) }
	return { logger, warnings }
}

/** A service with the Notion connector pointed at the emulator, and helpers to walk a connection through OAuth. */
async function harness(driver: 'pglite' | 'postgres', emulator: NotionEmulator) {
	const { logger, warnings } = keepingLogger()
	const t = await startTestService(driver, {
		env: {
			NOTION_CLIENT_ID: emulator.clientId,
			NOTION_CLIENT_SECRET: emulator.clientSecret,
			MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
		},
		plugins: [notion({ apiUrl: emulator.url, requestsPerSecond: 50, webhookVerificationTokens: [VERIFICATION_TOKEN] })],
		extractor: null,
		logger,
	})
	const settled = (id: string, since: string, key = t.key) => syncSettled(t, id, since, key)
	/** Creates a connection, completes OAuth through the emulator and waits for its first sync. */
	const connect = async (body: Record<string, unknown> = {}, key = t.key) => {
		const { created, landed } = await authorizeThroughEmulator(
			t,
			'notion',
			{ containerTag: 'notes', redirectUrl: 'https://app.example/connected', ...body },
			key,
		)
		expect(landed.status).toBe(302)
		expect(new URL(landed.headers.get('location')!).searchParams.get('error')).toBeNull()
		const id = created.body.id as string
		return { id, created: created.body, connection: await settled(id, '', key) }
	}
	const sync = async (tag: string) => {
		const since = new Date().toISOString()
		const started = await t.request('POST', '/v3/connections/notion/import', { body: { containerTags: [tag] } })
		expect(started.status).toBe(202)
		return since
	}
	const items = (id: string) => t.service.plugins.storage.connections.items(id)
	const webhook = (delivery: { body: string; headers: Record<string, string> }) =>
		t.request('POST', '/v3/connections/webhooks/notion', { body: delivery.body, headers: delivery.headers, key: null })
	return { t, connect, settled, sync, items, webhook, warnings }
}

describeEachDriver('Notion connector', (driver) => {
	let emulator: NotionEmulator
	let h: Awaited<ReturnType<typeof harness>>
	let t: TestService
	let handbook: string
	beforeAll(async () => {
		// Access tokens stop working after 3 s; Notion says nothing of their expiry, so a refused one is refreshed.
		emulator = startNotionEmulator({ tokenLifetimeSeconds: 3 })
		handbook = emulator.addPage({
			title: 'Team handbook',
			blocks: [block.heading(1, 'Shipping'), block.paragraph('The team ships on Thursdays.')],
		})
		emulator.addPage({ title: 'Onboarding', blocks: [block.bullet('Pair for two weeks')], parent: handbook })
		const tasks = emulator.addDatabase('Tasks')
		const row = (title: string, status: string, estimate: number) =>
			emulator.addRow(tasks, {
				title,
				properties: {
					Status: { type: 'status', status: { name: status } },
					Estimate: { type: 'number', number: estimate },
				},
				blocks: [block.paragraph(`${title}: the garden irrigation work item.`)],
			})
		row('Install drip lines', 'Done', 3)
		row('Order moisture sensors', 'In progress', 5)
		row('Plan winter covers', 'Not started', 8)
		h = await harness(driver, emulator)
		t = h.t
	}, 180_000)
	afterAll(async () => {
		await t.stop()
		emulator.stop()
	}, 60_000)

	it('authorizes a public integration (Basic-auth exchange), imports shared pages and rows, refreshes a refused token', async () => {
		const { id, created, connection } = await h.connect()
		const link = await providerUrlOf(t, created.authLink)
		expect(link.origin + link.pathname).toBe(`${emulator.url}/v1/oauth/authorize`)
		expect(link.searchParams.get('owner')).toBe('user')
		expect(link.searchParams.get('redirect_uri')).toBe('http://localhost/v3/connections/auth/callback/notion')
		expect(link.searchParams.get('code_challenge')).toBeNull()
		expect(emulator.calls(/oauth\/token exchange/)).toHaveLength(1)
		expect(connection).toMatchObject({ provider: 'notion', status: 'active', email: 'ada@example.com' })
		expect(connection.lastSyncRun).toMatchObject({ status: 'completed', added: 5, failed: 0 })

		const documents = await t.json('POST', '/v3/connections/notion/documents', { containerTags: ['notes'] })
		const page = documents.body.find((doc: { title: string }) => doc.title === 'Team handbook')
		const done = await t.waitForStatus(page.id)
		expect(done.content).toContain('# Shipping\n\nThe team ships on Thursdays.')
		expect(done.metadata).toMatchObject({ provider: 'notion', externalId: handbook, sourceType: 'notion_doc' })
		expect(done.metadata.url).toStartWith('https://www.notion.so/')

		// The access token has lapsed: Notion refuses it, the refresh token gets a new one and the sync goes on.
		await Bun.sleep(3200)
		emulator.editPage(handbook, { blocks: [block.paragraph('The team ships on Tuesdays now.')] })
		const since = await h.sync('notes')
		const after = await h.settled(id, since)
		expect(after.status).toBe('active')
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', updated: 1, added: 0 })
		expect(emulator.calls(/oauth\/token refresh/).length).toBeGreaterThanOrEqual(1)
		expect((await t.waitForStatus(page.id)).content).toContain('Tuesdays')
	}, 60_000)

	it('keeps database properties as metadata that search filters use', async () => {
		const { id } = await h.connect({ containerTag: 'garden' })
		for (const item of await h.items(id)) await t.waitForStatus(item.documentId)
		const search = async (filters: unknown) =>
			(await t.json('POST', '/v3/search', { q: 'garden irrigation work item', containerTag: 'garden', filters })).body
				.results as { title: string; metadata: Record<string, unknown> }[]
		const done = await search({ AND: [{ key: 'Status', value: 'Done' }] })
		expect(done.map((result) => result.title)).toEqual(['Install drip lines'])
		expect(done[0]!.metadata).toMatchObject({ Status: 'Done', Estimate: 3, database: 'Tasks' })
		const large = await search({ AND: [{ key: 'Estimate', value: '5', filterType: 'numeric', numericOperator: '>=' }] })
		expect(large.map((result) => result.title).sort()).toEqual(['Order moisture sensors', 'Plan winter covers'])
		const memories = await t.json('POST', '/v4/search', {
			q: 'garden irrigation work item',
			containerTag: 'garden',
			searchMode: 'hybrid',
			filters: { AND: [{ key: 'Status', value: 'Not started' }] },
		})
		expect(memories.status).toBe(200)
		const titles = memories.body.results.map((result: { title?: string; chunk?: string; memory?: string }) =>
			JSON.stringify(result),
		)
		expect(titles.join(' ')).toContain('Plan winter covers')
		expect(titles.join(' ')).not.toContain('Install drip lines')
	}, 60_000)

	it('deletes the document of a page moved to the trash', async () => {
		const trashMe = emulator.addPage({ title: 'Old plan', blocks: [block.paragraph('Superseded.')] })
		const { id } = await h.connect({ containerTag: 'trash' })
		const item = (await h.items(id)).find((entry) => entry.externalId === trashMe)!
		emulator.trash(trashMe)
		const after = await h.settled(id, await h.sync('trash'))
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', deleted: 1 })
		expect((await t.json('GET', `/v3/documents/${item.documentId}`)).status).toBe(404)
	}, 60_000)

	it('answers the verification handshake, syncs on signed page events, refuses forged ones, acknowledges replays', async () => {
		const handshake = await h.webhook(emulator.handshake(VERIFICATION_TOKEN))
		expect(handshake.status).toBe(200)
		expect(h.warnings.find((w) => w.message.includes('verification token'))?.fields).toEqual({
			verificationToken: VERIFICATION_TOKEN,
		})
		// Anyone can send a handshake: a token not of Notion's form (here 1 MB of it) is refused and never logged.
		const warned = h.warnings.length
		const flood = await h.webhook(emulator.handshake(`secret_${'x'.repeat(1_000_000)}`))
		expect(flood.status).toBe(400)
		expect((await h.webhook(emulator.handshake('trust me'))).status).toBe(400)
		expect(h.warnings.length).toBe(warned)
		const { id } = await h.connect({ containerTag: 'hooks' })
		const runs = async () => (await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns.length
		const count = await runs()
		const forged = await h.webhook(await emulator.delivery('not the token', { type: 'page.created', entityId: 'x' }))
		expect(forged.status).toBe(401)
		expect(((await forged.json()) as { error: string }).error).toBe('Webhook refused')
		const unsigned = await emulator.delivery(VERIFICATION_TOKEN, { type: 'page.created', entityId: 'x' })
		delete (unsigned.headers as Record<string, string | undefined>)['x-notion-signature']
		expect((await h.webhook(unsigned)).status).toBe(401)
		const elsewhere = await emulator.delivery(VERIFICATION_TOKEN, {
			type: 'page.created',
			entityId: 'x',
			workspaceId: 'another-workspace',
		})
		// Verified (signed with the integration's token) but for no connection here: acknowledged, nothing done.
		const unknown = await h.webhook(elsewhere)
		expect(unknown.status).toBe(202)
		expect(((await unknown.json()) as { accepted: number }).accepted).toBe(0)
		const comment = await h.webhook(
			await emulator.delivery(VERIFICATION_TOKEN, { type: 'comment.created', entityId: 'x' }),
		)
		expect(comment.status).toBe(202)
		expect(((await comment.json()) as { accepted: number }).accepted).toBe(0)
		await Bun.sleep(1000)
		expect(await runs()).toBe(count)

		const added = emulator.addPage({ title: 'Arrived by webhook', blocks: [block.paragraph('Pushed.')] })
		const delivery = await emulator.delivery(VERIFICATION_TOKEN, { type: 'page.created', entityId: added })
		const since = new Date().toISOString()
		const accepted = await h.webhook(delivery)
		expect(accepted.status).toBe(202)
		expect(((await accepted.json()) as { accepted: number }).accepted).toBeGreaterThanOrEqual(1)
		const synced = await h.settled(id, since)
		expect(synced.lastSyncRun.trigger).toBe('webhook')
		expect((await h.items(id)).some((item) => item.externalId === added)).toBe(true)
		// A verified redelivery is acknowledged (Notion retries anything else) and starts nothing.
		const before = await runs()
		const replayed = await h.webhook(delivery)
		expect(replayed.status).toBe(202)
		expect(((await replayed.json()) as { accepted: number }).accepted).toBe(0)
		await Bun.sleep(500)
		expect(await runs()).toBe(before)
	}, 60_000)

	it('deletes a connection with its documents and revokes the grant at Notion', async () => {
		const { id } = await h.connect({ containerTag: 'gone' })
		const documents = (await h.items(id)).map((item) => item.documentId)
		const revocations = emulator.calls(/oauth\/revoke/).length
		expect((await t.json('DELETE', `/v3/connections/${id}`)).body).toEqual({ id, provider: 'notion' })
		expect(emulator.calls(/oauth\/revoke/).length).toBe(revocations + 1)
		for (const document of documents) expect((await t.json('GET', `/v3/documents/${document}`)).status).toBe(404)
	}, 60_000)
})

describe('Notion connector: OAuth applications', () => {
	it('takes a delivery only for the connections of the integration whose verification token signed it', async () => {
		const emulator = startNotionEmulator()
		const serverToken = 'secret_server_integration_token_0001'
		const orgToken = 'secret_organization_integration_token_02'
		const t = await startTestService('pglite', {
			env: {
				NOTION_CLIENT_ID: emulator.clientId,
				NOTION_CLIENT_SECRET: emulator.clientSecret,
				MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
			},
			plugins: [notion({ apiUrl: emulator.url, requestsPerSecond: 50, webhookVerificationTokens: [serverToken] })],
			extractor: null,
		})
		try {
			const org = await t.createKey('Own integration')
			const settings = await t.json(
				'PATCH',
				'/v3/settings',
				{
					notionClientId: emulator.clientId,
					notionClientSecret: emulator.clientSecret,
					notionCustomKeyEnabled: true,
					notionWebhookVerificationToken: orgToken,
				},
				org,
			)
			expect(settings.status).toBe(200)
			expect(settings.body.updated.notionWebhookVerificationToken).toBe(`****${orgToken.slice(-4)}`)
			// The same workspace connected by two organizations: through the server's integration and through its own.
			const connect = async (key: string) => {
				const { created } = await authorizeThroughEmulator(t, 'notion', { containerTag: 'shared-ws' }, key)
				await syncSettled(t, created.body.id, '', key)
				return created.body.id as string
			}
			const connections = [
				{ id: await connect(t.key), key: t.key },
				{ id: await connect(org), key: org },
			]
			const runs = () =>
				Promise.all(
					connections.map(
						async ({ id, key }) =>
							(await t.json('GET', `/v3/connections/${id}/sync-runs`, undefined, key)).body.syncRuns.length as number,
					),
				)
			const deliver = async (token: string) => {
				const before = await runs()
				const delivery = await emulator.delivery(token, { type: 'page.updated', entityId: 'x' })
				const answer = await t.request('POST', '/v3/connections/webhooks/notion', {
					body: delivery.body,
					headers: delivery.headers,
					key: null,
				})
				await Bun.sleep(1500)
				const after = await runs()
				return { status: answer.status, started: after.map((count, i) => count - before[i]!) }
			}
			expect(await deliver(orgToken)).toEqual({ status: 202, started: [0, 1] })
			expect(await deliver(serverToken)).toEqual({ status: 202, started: [1, 0] })
			expect(await deliver('secret_nobody_configured_this_token')).toEqual({ status: 401, started: [0, 0] })
		} finally {
			await t.stop()
			emulator.stop()
		}
	}, 90_000)

	it('refuses a token exchange without Basic auth (the emulator holds Notion to it)', async () => {
		const emulator = startNotionEmulator()
		try {
			const form = await fetch(`${emulator.url}/v1/oauth/token`, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: new URLSearchParams({
					grant_type: 'authorization_code',
					code: 'x',
					client_id: emulator.clientId,
					client_secret: emulator.clientSecret,
				}),
			})
			expect(form.status).toBe(401)
		} finally {
			emulator.stop()
		}
	})
})
