import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { gmail } from '../../connectors/gmail/index.ts'
import { googleDrive } from '../../connectors/google-drive/index.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { addDriveRoutes, type DriveEmulator } from '../../testkit/emulators/google-drive.ts'
import { type GmailEmulator, startGmailEmulator } from '../../testkit/emulators/google-gmail.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const TOPIC = 'projects/demo-project/topics/gmail'
const AUDIENCE = 'https://memory.example.com/v3/connections/webhooks/gmail'
const ORG_CLIENT = { id: 'org-client.apps.googleusercontent.com', secret: 'org-secret', project: 'org-project' }
const PUSH_ACCOUNT = 'gmail-push@demo-project.iam.gserviceaccount.com'

/** Drive and Gmail on one Google (one application, one account), through the service. */
describe('Google Drive and Gmail through the service, as Google answers', () => {
	let emulator: GmailEmulator
	let drive: DriveEmulator
	let t: TestService
	beforeAll(async () => {
		emulator = await startGmailEmulator({ tokenLifetimeSeconds: 3599 })
		drive = addDriveRoutes(emulator.google)
		emulator.google.addClient(ORG_CLIENT.id, ORG_CLIENT.secret, ORG_CLIENT.project)
		const endpoints = { accountsUrl: emulator.url, oauthUrl: emulator.url, apiUrl: emulator.url }
		t = await startTestService('postgres', {
			env: {
				GOOGLE_CLIENT_ID: emulator.google.clientId,
				GOOGLE_CLIENT_SECRET: emulator.google.clientSecret,
				MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
			},
			plugins: [
				googleDrive(endpoints),
				gmail({
					...endpoints,
					pubsubTopic: TOPIC,
					pushAudience: AUDIENCE,
					pushServiceAccount: PUSH_ACCOUNT,
					pushJwksUrl: emulator.jwksUrl,
				}),
			],
			extractor: null,
		})
	}, 180_000)
	afterAll(async () => {
		await t.stop()
		emulator.stop()
	}, 60_000)

	const connect = async (provider: string, containerTag: string, key = t.key) => {
		const { created, landed } = await authorizeThroughEmulator(t, provider, { containerTag }, key)
		const id = created.body.id as string
		return { id, landed, connection: await syncSettled(t, id, '', key) }
	}
	const sync = async (provider: string, id: string, tag: string, key = t.key) => {
		const since = new Date().toISOString()
		await t.request('POST', `/v3/connections/${provider}/import`, { body: { containerTags: [tag] }, key })
		return syncSettled(t, id, since, key)
	}
	const refreshes = () => emulator.google.log.filter((line) => line === 'POST /token refresh').length

	it('refreshes once when Google refuses an access token it still had time on, and goes on', async () => {
		const { id } = await connect('google-drive', 'drive-401')
		const doc = drive.doc('After the refusal', 'imported with a refreshed token')
		// Google invalidated the access token (the service still thinks it has an hour).
		emulator.google.expireAccessTokens()
		const before = refreshes()
		const after = await sync('google-drive', id, 'drive-401')
		expect(after.status).toBe('active')
		expect(after.lastSyncRun.status).toBe('completed')
		expect(refreshes() - before).toBe(1)
		const items = await t.service.plugins.storage.connections.items(id)
		expect(items.map((item) => item.externalId)).toContain(doc.id)
		expect((await t.json('DELETE', `/v3/connections/${id}`)).status).toBe(200)
	}, 120_000)

	it('shares one Gmail watch between connections on the same mailbox: the union of labels, stopped with the last', async () => {
		const starred = 'STARRED'
		const first = await connect('gmail', 'mail-a')
		const otherOrg = await t.createKey('Another organization')
		const second = await connect('gmail', 'mail-b', otherOrg)
		await t.json('POST', `/v3/connections/${second.id}/configure`, { resources: [{ id: starred }] }, otherOrg)
		expect(emulator.activeWatch()?.labelIds.sort()).toEqual(['INBOX', starred].sort())
		// The first one reconfigured: the watch keeps the second one's label.
		await t.json('POST', `/v3/connections/${first.id}/configure`, { resources: [] })
		expect(emulator.activeWatch()?.labelIds.sort()).toEqual(['INBOX', starred].sort())
		await t.json('DELETE', `/v3/connections/${second.id}`, undefined, otherOrg)
		expect(emulator.activeWatch()?.labelIds).toEqual(['INBOX'])
		await t.json('DELETE', `/v3/connections/${first.id}`)
		expect(emulator.activeWatch()).toBeNull()
	}, 180_000)

	it("watches on the topic of an organization's own application, and turns push off without one", async () => {
		const org = await t.createKey('Own application')
		const enabled = await t.json(
			'PATCH',
			'/v3/settings',
			{
				googleDriveClientId: ORG_CLIENT.id,
				googleDriveClientSecret: ORG_CLIENT.secret,
				googleDriveCustomKeyEnabled: true,
			},
			org,
		)
		expect(enabled.status).toBe(200)
		const bad = await t.json('PATCH', '/v3/settings', { googleDrivePubsubTopic: 'gmail-topic' }, org)
		expect(bad.status).toBe(400)
		const watchesBefore = emulator.watches.length
		const withoutTopic = await connect('gmail', 'own-app', org)
		expect(withoutTopic.connection.status).toBe('active')
		// No watch was attempted on the server's topic, which Gmail refuses for another project.
		expect(emulator.watches.length).toBe(watchesBefore)
		expect(emulator.activeWatch(ORG_CLIENT.project)).toBeNull()
		await t.json('DELETE', `/v3/connections/${withoutTopic.id}`, undefined, org)

		const topic = `projects/${ORG_CLIENT.project}/topics/gmail-push`
		const account = `gmail-push@${ORG_CLIENT.project}.iam.gserviceaccount.com`
		const pushSettings = { googleDrivePubsubTopic: topic, googleDrivePushServiceAccount: account }
		expect((await t.json('PATCH', '/v3/settings', pushSettings, org)).status).toBe(200)
		const withTopic = await connect('gmail', 'own-app-2', org)
		expect(withTopic.connection.status).toBe('active')
		expect(emulator.activeWatch(ORG_CLIENT.project)).toMatchObject({ topicName: topic, labelIds: ['INBOX'] })
	}, 180_000)

	it('deletes the Gmail connection without ending the Drive connection of the same account; the last one revokes', async () => {
		const paired = await connect('google-drive', 'pair-drive')
		const mail = await connect('gmail', 'pair-mail')
		const revocations = emulator.google.revocations()
		expect((await t.json('DELETE', `/v3/connections/${mail.id}`)).status).toBe(200)
		expect(emulator.google.revocations()).toBe(revocations)
		// The Drive connection's grant still works, refresh included.
		emulator.google.expireAccessTokens()
		const doc = drive.doc('After the sibling went', 'still synced')
		const after = await sync('google-drive', paired.id, 'pair-drive')
		expect(after.status).toBe('active')
		const items = await t.service.plugins.storage.connections.items(paired.id)
		expect(items.map((item) => item.externalId)).toContain(doc.id)
		expect((await t.json('DELETE', `/v3/connections/${paired.id}`)).status).toBe(200)
		expect(emulator.google.revocations()).toBe(revocations + 1)
	}, 180_000)

	it('refuses a grant the user unticked drive.readonly from, naming it; the connection never becomes active', async () => {
		emulator.google.consent.unticked = ['https://www.googleapis.com/auth/drive.readonly']
		try {
			const { created } = await authorizeThroughEmulator(t, 'google-drive', { containerTag: 'unticked' })
			const { body } = await t.json('GET', `/v3/connections/${created.body.id}`)
			expect(body.status).not.toBe('active')
			expect(JSON.stringify(body)).toContain('drive.readonly')
		} finally {
			emulator.google.consent.unticked = []
		}
	}, 120_000)

	it('acknowledges verified Pub/Sub pushes for unknown mailboxes and replays, refuses forged ones, and stops any watch on delete', async () => {
		const webhook = (delivery: { body: string; headers: Record<string, string> }) =>
			t.request('POST', '/v3/connections/webhooks/gmail', { body: delivery.body, headers: delivery.headers, key: null })
		const unknown = await webhook(await emulator.push({ audience: AUDIENCE, emailAddress: 'nobody@example.com' }))
		expect(unknown.status).toBeLessThan(300)
		const forged = await webhook(await emulator.push({ audience: AUDIENCE, forged: true }))
		expect(forged.status).toBe(401)
		const { id } = await connect('gmail', 'push-replay')
		const push = await emulator.push({ audience: AUDIENCE, messageId: 'pubsub-message-1' })
		expect((await webhook(push)).status).toBeLessThan(300)
		expect((await webhook(push)).status).toBeLessThan(300)
		// An expired connection's watch is stopped too when it is deleted.
		await t.service.plugins.storage.connections.update(id, { status: 'expired' })
		const stops = emulator.log.filter((line) => line === 'POST /stop').length
		expect((await t.json('DELETE', `/v3/connections/${id}`)).status).toBe(200)
		expect(emulator.log.filter((line) => line === 'POST /stop').length).toBe(stops + 1)
	}, 120_000)
})
