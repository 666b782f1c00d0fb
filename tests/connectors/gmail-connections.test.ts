import { afterAll, beforeAll, expect, it } from 'bun:test'
import { renewSubscriptions } from '../../core/connectors/lifecycle.ts'
import { authorizeThroughEmulator, providerUrlOf, syncSettled } from '../../testkit/connections.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { type GmailEmulator, startGmailEmulator } from '../../testkit/emulators/google-gmail.ts'
import {
	GMAIL_PUSH_AUDIENCE as AUDIENCE,
	startGmailService,
	GMAIL_TOPIC as TOPIC,
} from '../../testkit/gmail-service.ts'
import { samplePdf } from '../../testkit/sample-files.ts'
import type { TestService } from '../../testkit/service.ts'

const PUSH_ACCOUNT = 'gmail-push@demo-project.iam.gserviceaccount.com'

/** A service with the Gmail connector on the emulator, and helpers to walk a connection through Google's OAuth. */
async function harness(driver: 'pglite' | 'postgres', emulator: GmailEmulator) {
	const t = await startGmailService(driver, emulator, PUSH_ACCOUNT)
	const settled = (id: string, since: string, key = t.key) => syncSettled(t, id, since, key)
	const connect = async (body: Record<string, unknown> = {}, key = t.key) => {
		const { created, landed } = await authorizeThroughEmulator(t, 'gmail', { containerTag: 'mail', ...body }, key)
		expect(landed.status).toBe(200)
		const id = created.body.id as string
		const connection = await settled(id, '', key)
		return { id, created: created.body, connection }
	}
	const sync = async (tag: string, id: string) => {
		const since = new Date().toISOString()
		const started = await t.request('POST', '/v3/connections/gmail/import', { body: { containerTags: [tag] } })
		expect(started.status).toBe(202)
		return settled(id, since)
	}
	const items = (id: string) => t.service.plugins.storage.connections.items(id)
	const push = (delivery: { body: string; headers: Record<string, string> }) =>
		t.request('POST', '/v3/connections/webhooks/gmail', { body: delivery.body, headers: delivery.headers, key: null })
	return { t, connect, settled, sync, items, push }
}

describeEachDriver('Gmail connector through the service', (driver) => {
	let emulator: GmailEmulator
	let h: Awaited<ReturnType<typeof harness>>
	let t: TestService
	beforeAll(async () => {
		emulator = await startGmailEmulator({ tokenLifetimeSeconds: 30 })
		h = await harness(driver, emulator)
		t = h.t
	}, 180_000)
	afterAll(async () => {
		await t.stop()
		emulator.stop()
	}, 60_000)

	it('authorizes with Google, lists labels, imports threads into searchable documents and watches the mailbox', async () => {
		const thread = emulator.deliver({
			subject: 'Greenhouse heating',
			text: 'The greenhouse heater switches on below 6 degrees.',
		})
		const projects = emulator.addLabel('Projects')
		const labelled = emulator.deliver(
			{ subject: 'Pond pump', text: 'The pond pump was replaced in October.' },
			{ labels: [projects] },
		)
		const { id, created, connection } = await h.connect()
		const link = await providerUrlOf(t, created.authLink)
		expect(link.searchParams.get('access_type')).toBe('offline')
		expect(link.searchParams.get('prompt')).toBe('consent')
		expect(link.searchParams.get('code_challenge_method')).toBe('S256')
		expect(link.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/gmail.readonly')
		expect(connection).toMatchObject({ provider: 'gmail', status: 'active', email: emulator.google.email })
		expect(connection.lastSyncRun).toMatchObject({ status: 'completed', added: 1 })
		expect((await h.items(id)).map((item) => item.externalId)).toEqual([thread.threadId])
		// The mailbox is watched through Pub/Sub as soon as it is authorized.
		expect(emulator.watches.at(-1)).toEqual({ topicName: TOPIC, labelIds: ['INBOX'] })

		const resources = await t.json('GET', `/v3/connections/${id}/resources`)
		expect(resources.status).toBe(200)
		expect(resources.body.resources).toContainEqual({ id: projects, name: 'Projects', type: 'user', selected: false })
		const since = new Date().toISOString()
		const configured = await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ id: projects }] })
		expect(configured.status).toBe(200)
		expect(configured.body).toMatchObject({ success: true, webhooksRegistered: 1 })
		expect(emulator.watches.at(-1)).toEqual({ topicName: TOPIC, labelIds: ['INBOX', projects] })
		const after = await h.settled(id, since)
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', added: 1, failed: 0 })
		expect((await h.items(id)).map((item) => item.externalId).sort()).toEqual(
			[thread.threadId, labelled.threadId].sort(),
		)

		const imported = await t.json('POST', '/v3/connections/gmail/documents', { containerTags: ['mail'] })
		const greenhouse = imported.body.find((doc: { title: string }) => doc.title === 'Greenhouse heating')
		const done = await t.waitForStatus(greenhouse.id)
		expect(done).toMatchObject({ status: 'done', containerTag: 'mail', connectionId: id })
		expect(done.metadata).toMatchObject({
			provider: 'gmail',
			externalId: thread.threadId,
			sourceType: 'gmail_thread',
			subject: 'Greenhouse heating',
			messageCount: 1,
		})
		expect(done.content).toContain('Subject: Greenhouse heating')
		const search = await t.json('POST', '/v3/search', {
			q: 'when does the greenhouse heater switch on',
			containerTag: 'mail',
		})
		expect(search.body.results[0]?.documentId).toBe(greenhouse.id)
		// Access tokens live 30 s here: the sync refreshed them through Google's token endpoint.
		expect(emulator.google.log.some((line) => line === 'POST /token refresh')).toBe(true)
	}, 90_000)

	it('imports a PDF attachment through the service file ingestion when attachments are on', async () => {
		const pdf = await samplePdf('Seed order', ['Seed order 2026-88', 'Forty packets of heirloom tomatoes'])
		const mail = emulator.deliver({
			subject: 'Seed order',
			text: 'The order is attached.',
			attachments: [{ name: 'order.pdf', mimeType: 'application/pdf', bytes: pdf }],
		})
		const { id } = await h.connect({ containerTag: 'files', metadata: { includeAttachments: true } })
		const attachment = (await h.items(id)).find((item) => item.externalId === `${mail.threadId}:${mail.id}:0`)
		expect(attachment).toBeDefined()
		const done = await t.waitForStatus(attachment!.documentId)
		expect(done).toMatchObject({ status: 'done', type: 'pdf' })
		expect(done.content).toContain('heirloom tomatoes')
		expect(done.metadata).toMatchObject({ provider: 'gmail', sourceType: 'gmail_attachment', threadId: mail.threadId })
	}, 90_000)

	it('accepts a signed Pub/Sub push for a watched mailbox and refuses forged or expired ones, acknowledging a replay or an unknown mailbox', async () => {
		const { id } = await h.connect({ containerTag: 'pushed' })
		const runs = async () => (await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns.length
		const count = await runs()
		const refusals = [
			await emulator.push({ audience: AUDIENCE, forged: true }),
			await emulator.push({ audience: 'https://elsewhere.example.com/push' }),
			await emulator.push({ audience: AUDIENCE, expiresInSeconds: -120 }),
			await emulator.push({ audience: AUDIENCE, issuer: 'https://evil.example.com' }),
			await emulator.push({ audience: AUDIENCE, serviceAccount: 'someone@else.iam.gserviceaccount.com' }),
		]
		for (const delivery of refusals) {
			const refused = await h.push(delivery)
			expect(refused.status).toBe(401)
			expect(((await refused.json()) as { error: string }).error).toBe('Webhook refused')
		}
		const unsigned = await emulator.push({ audience: AUDIENCE })
		expect((await h.push({ body: unsigned.body, headers: { 'content-type': 'application/json' } })).status).toBe(401)
		const garbage = await h.push({ body: 'not json', headers: { 'content-type': 'text/plain' } })
		expect(garbage.status).toBe(401)
		// A signed push for a mailbox no connection watches (one deleted meanwhile) is acknowledged: Pub/Sub redelivers
		// anything else for days.
		const stranger = await h.push(await emulator.push({ audience: AUDIENCE, emailAddress: 'stranger@example.com' }))
		expect(stranger.status).toBe(202)
		expect(await stranger.json()).toEqual({ accepted: 0 })
		await Bun.sleep(1000)
		expect(await runs()).toBe(count)

		const fresh = emulator.deliver({ subject: 'Pushed', text: 'Arrived through a push notification.' })
		const delivery = await emulator.push({ audience: AUDIENCE })
		const since = new Date().toISOString()
		const accepted = await h.push(delivery)
		expect(accepted.status).toBe(202)
		expect(((await accepted.json()) as { accepted: number }).accepted).toBeGreaterThanOrEqual(1)
		const synced = await h.settled(id, since)
		expect(synced.lastSyncRun.trigger).toBe('webhook')
		expect((await h.items(id)).some((item) => item.externalId === fresh.threadId)).toBe(true)
		const replayed = await h.push(delivery)
		// A verified duplicate is acknowledged (a provider redelivers anything else) and starts nothing.
		expect(replayed.status).toBe(202)
		expect(await replayed.json()).toEqual({ accepted: 0 })
	}, 90_000)

	it('renews the mailbox watch about daily, before it lapses', async () => {
		const { id } = await h.connect({ containerTag: 'renewed' })
		const [subscription] = await t.service.plugins.storage.connections.subscriptions(id)
		expect(subscription?.routeKey).toBe(emulator.emailAddress)
		// Recorded as lapsing within two days, so the hourly renewal calls watch again about once a day.
		const recorded = Date.parse(subscription!.expiresAt!)
		expect(recorded).toBeGreaterThan(Date.now() + 47 * 3_600_000)
		expect(recorded).toBeLessThan(Date.now() + 49 * 3_600_000)
		await t.service.plugins.storage.connections.setSubscriptionExpiry(
			subscription!.id,
			new Date(Date.now() + 3_600_000).toISOString(),
		)
		const watches = emulator.watches.length
		await renewSubscriptions(t.service.services.connectorDeps)
		expect(emulator.watches.length).toBeGreaterThan(watches)
		const [renewed] = await t.service.plugins.storage.connections.subscriptions(id)
		expect(Date.parse(renewed!.expiresAt!)).toBeGreaterThan(Date.now() + 47 * 3_600_000)
	}, 60_000)

	it('removes threads moved to trash or deleted, and re-renders a partly deleted thread', async () => {
		const whole = emulator.deliver({ subject: 'Old invoice', text: 'Invoice 17 is paid.' })
		const partly = emulator.deliver({ subject: 'Plans', text: 'Plan A: plant in March.' })
		const second = emulator.deliver(
			{ subject: 'Re: Plans', text: 'Plan B: plant in April.' },
			{ threadId: partly.threadId },
		)
		const gone = emulator.deliver({ subject: 'Spam-ish', text: 'Deleted for good.' })
		const { id } = await h.connect({ containerTag: 'trash' })
		const byExternal = async () => new Map((await h.items(id)).map((item) => [item.externalId, item.documentId]))
		const before = await byExternal()
		emulator.trash(whole.id)
		emulator.trash(second.id)
		emulator.remove(gone.id)
		const after = await h.sync('trash', id)
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', deleted: 2, updated: 1 })
		expect((await t.json('GET', `/v3/documents/${before.get(whole.threadId)}`)).status).toBe(404)
		expect((await t.json('GET', `/v3/documents/${before.get(gone.threadId)}`)).status).toBe(404)
		const plans = await t.waitForStatus(before.get(partly.threadId)!)
		expect(plans.content).toContain('Plan A')
		expect(plans.content).not.toContain('Plan B')
	}, 90_000)

	it("deletes one Gmail connection, keeping the account's grant and its watch for the others", async () => {
		const { id } = await h.connect({ containerTag: 'private' })
		const deleted = await t.json('DELETE', `/v3/connections/${id}`)
		expect(deleted.body).toEqual({ id, provider: 'gmail' })
		// Other connections of the same account and application remain: the grant stays, and the mailbox's shared
		// watch is narrowed to their labels rather than stopped.
		expect(emulator.google.log.slice(-1)).toEqual(['POST /gmail/v1/users/me/watch'])
		expect(emulator.activeWatch()).not.toBeNull()
	}, 90_000)
})
