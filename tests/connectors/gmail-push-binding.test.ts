import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { renewSubscriptions } from '../../core/connectors/lifecycle.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { type GmailEmulator, startGmailEmulator } from '../../testkit/emulators/google-gmail.ts'
import {
	GMAIL_PUSH_AUDIENCE as AUDIENCE,
	startGmailService,
	GMAIL_TOPIC as TOPIC,
} from '../../testkit/gmail-service.ts'
import type { TestService } from '../../testkit/service.ts'

const SERVER_ACCOUNT = 'gmail-push@demo-project.iam.gserviceaccount.com'
const ORG_ACCOUNT = 'org-push@org-project.iam.gserviceaccount.com'
const STRANGER_ACCOUNT = 'anyone@attacker-project.iam.gserviceaccount.com'
const ORG_CLIENT = { id: 'org-client.apps.googleusercontent.com', secret: 'org-secret', project: 'org-project' }
const LATE_CLIENT = { id: 'late-client.apps.googleusercontent.com', secret: 'late-secret', project: 'late-project' }
const LATE_ACCOUNT = 'late-push@late-project.iam.gserviceaccount.com'

const webhook = (t: TestService, delivery: { body: string; headers: Record<string, string> }) =>
	t.request('POST', '/v3/connections/webhooks/gmail', { body: delivery.body, headers: delivery.headers, key: null })

async function connect(t: TestService, containerTag: string, key = t.key) {
	const { created } = await authorizeThroughEmulator(t, 'gmail', { containerTag }, key)
	const id = created.body.id as string
	await syncSettled(t, id, '', key)
	return id
}

const runs = async (t: TestService, id: string, key = t.key) =>
	(await t.json('GET', `/v3/connections/${id}/sync-runs`, undefined, key)).body.syncRuns.length as number

describe('Gmail push without a push service account', () => {
	let emulator: GmailEmulator
	let t: TestService
	beforeAll(async () => {
		emulator = await startGmailEmulator()
		t = await startGmailService('pglite', emulator, undefined)
	}, 120_000)
	afterAll(async () => {
		await t.stop()
		emulator.stop()
	})

	it('makes no watch and refuses every push, however Google signed it; the mailbox syncs on schedule', async () => {
		const id = await connect(t, 'unbound')
		expect(emulator.activeWatch()).toBeNull()
		expect(await t.service.plugins.storage.connections.subscriptions(id)).toEqual([])
		const before = await runs(t, id)
		for (const account of [SERVER_ACCOUNT, STRANGER_ACCOUNT]) {
			const refused = await webhook(t, await emulator.push({ audience: AUDIENCE, serviceAccount: account }))
			expect(refused.status).toBe(401)
		}
		await Bun.sleep(1000)
		expect(await runs(t, id)).toBe(before)
		const connection = await t.json('GET', `/v3/connections/${id}`)
		expect(connection.body.status).toBe('active')
	}, 60_000)

	it('lets a watch made before push was turned off lapse instead of renewing it', async () => {
		const id = await connect(t, 'upgraded')
		const storage = t.service.plugins.storage.connections
		const connection = (await storage.byId(id))!
		const soon = new Date(Date.now() + 3_600_000).toISOString()
		await storage.addSubscriptions(connection, [
			{
				externalId: emulator.emailAddress,
				routeKey: emulator.emailAddress,
				secret: t.service.services.connectorDeps.secrets.seal(''),
				expiresAt: soon,
				data: { topic: TOPIC },
			},
		])
		const watches = emulator.watches.length
		await renewSubscriptions(t.service.services.connectorDeps)
		expect(emulator.watches.length).toBe(watches)
		const [kept] = await storage.subscriptions(id)
		expect(kept?.expiresAt).toBeNull()
	}, 60_000)
})

describe("Gmail push bound to the service account of the connection's application", () => {
	let emulator: GmailEmulator
	let t: TestService
	let org: string
	let serverConnection: string
	let orgConnection: string
	beforeAll(async () => {
		emulator = await startGmailEmulator()
		emulator.google.addClient(ORG_CLIENT.id, ORG_CLIENT.secret, ORG_CLIENT.project)
		emulator.google.addClient(LATE_CLIENT.id, LATE_CLIENT.secret, LATE_CLIENT.project)
		t = await startGmailService('pglite', emulator, SERVER_ACCOUNT)
		org = await t.createKey('Own application')
		const settings = await t.json(
			'PATCH',
			'/v3/settings',
			{
				googleDriveClientId: ORG_CLIENT.id,
				googleDriveClientSecret: ORG_CLIENT.secret,
				googleDriveCustomKeyEnabled: true,
				googleDrivePubsubTopic: `projects/${ORG_CLIENT.project}/topics/gmail-push`,
				googleDrivePushServiceAccount: ORG_ACCOUNT,
			},
			org,
		)
		expect(settings.status).toBe(200)
		// The same mailbox connected by two organizations: the server's application and the organization's own.
		serverConnection = await connect(t, 'server-app')
		orgConnection = await connect(t, 'own-app', org)
	}, 120_000)
	afterAll(async () => {
		await t.stop()
		emulator.stop()
	})

	const syncsAfter = async (account: string) => {
		const before = [await runs(t, serverConnection), await runs(t, orgConnection, org)]
		const answer = await webhook(t, await emulator.push({ audience: AUDIENCE, serviceAccount: account }))
		await Bun.sleep(1500)
		const after = [await runs(t, serverConnection), await runs(t, orgConnection, org)]
		return { status: answer.status, started: after.map((count, i) => count - before[i]!) }
	}

	it("starts only the syncs of the connections whose application's account signed the push", async () => {
		expect(await syncsAfter(SERVER_ACCOUNT)).toEqual({ status: 202, started: [1, 0] })
		expect(await syncsAfter(ORG_ACCOUNT)).toEqual({ status: 202, started: [0, 1] })
		expect(await syncsAfter(STRANGER_ACCOUNT)).toEqual({ status: 401, started: [0, 0] })
	}, 60_000)

	it('refuses a service account that is not one, and keeps the one set', async () => {
		const bad = await t.json('PATCH', '/v3/settings', { googleDrivePushServiceAccount: 'someone@gmail.com' }, org)
		expect(bad.status).toBe(400)
		const settings = await t.json('GET', '/v3/settings', undefined, org)
		expect(settings.body.googleDrivePushServiceAccount).toBe(ORG_ACCOUNT)
	})

	it("watches on the organization's topic set after connecting, once the connection is configured again", async () => {
		const late = await t.createKey('Push later')
		const client = { googleDriveClientId: LATE_CLIENT.id, googleDriveClientSecret: LATE_CLIENT.secret }
		expect((await t.json('PATCH', '/v3/settings', { ...client, googleDriveCustomKeyEnabled: true }, late)).status).toBe(
			200,
		)
		const id = await connect(t, 'push-later', late)
		expect(emulator.activeWatch(LATE_CLIENT.project)).toBeNull()

		const topic = `projects/${LATE_CLIENT.project}/topics/gmail-push`
		const push = { googleDrivePubsubTopic: topic, googleDrivePushServiceAccount: LATE_ACCOUNT }
		expect((await t.json('PATCH', '/v3/settings', push, late)).status).toBe(200)
		const configured = await t.json('POST', `/v3/connections/${id}/configure`, { resources: [] }, late)
		expect(configured.status).toBe(200)
		expect(configured.body).toMatchObject({ success: true, webhooksRegistered: 1 })
		expect(emulator.activeWatch(LATE_CLIENT.project)?.topicName).toBe(topic)
	}, 60_000)
})
