import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { relativeLink } from '../../connectors/onedrive/client.ts'
import { renewSubscriptions } from '../../core/connectors/lifecycle.ts'
import { openSecrets } from '../../core/connectors/secrets.ts'
import { PLUGIN_API_VERSION, type Plugin } from '../../core/index.ts'
import { validatePlugins } from '../../core/plugins/registry.ts'
import { connectorsFromEnv } from '../../server/connectors-from-env.ts'
import { providerUrlOf } from '../../testkit/connections.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { type GraphEmulator, MAX_SUBSCRIPTION_MINUTES, startGraphEmulator } from '../../testkit/emulators/graph.ts'
import { MAX_FILE_BYTES, onedriveHarness } from '../../testkit/onedrive-harness.ts'
import { binaryGarbage, sampleDocx, samplePdf, samplePptx, sampleXlsx } from '../../testkit/sample-files.ts'
import type { TestService } from '../../testkit/service.ts'
import { waitFor } from '../../testkit/wait.ts'

describeEachDriver('OneDrive connector', (driver) => {
	let emulator: GraphEmulator
	let h: Awaited<ReturnType<typeof onedriveHarness>>
	let t: TestService
	beforeAll(async () => {
		// Access tokens live 30 s, under core's refresh margin: every use refreshes (and rotates) them.
		emulator = startGraphEmulator({ tokenLifetimeSeconds: 30, pageSize: 3 })
		h = await onedriveHarness(driver, emulator)
		t = h.t
	}, 180_000)
	afterAll(async () => {
		await h.stop()
		emulator.stop()
	}, 60_000)

	it('authorizes with PKCE at the common authority, keeps each rotated refresh token and imports files', async () => {
		const drive = emulator.drive('ada')
		const docs = drive.addFolder('Docs')
		const pdf = drive.addFile(
			'harbour.pdf',
			await samplePdf('Harbour', ['The harbour ferry leaves at seven every morning.']),
			docs,
			'application/pdf',
		)
		drive.addFile('plan.docx', await sampleDocx('Plan', ['The roof is repaired in April.']), docs)
		drive.addFile('deck.pptx', await samplePptx([['Quarterly review', 'Revenue grew in the north.']]))
		drive.addFile(
			'budget.xlsx',
			sampleXlsx([
				{
					name: 'Costs',
					rows: [
						['item', 'cost'],
						['paint', 40],
					],
				},
			]),
		)
		drive.addFile('notes.txt', 'Buy oat milk for the office kitchen.', docs, 'text/plain')
		drive.addFile('readme.md', '# Readme\n\nThe wiki lives in the Docs folder.')
		const refreshesBefore = emulator.log.filter((line) => line === 'POST refresh').length

		const { id, created, synced } = await h.connect('ada')
		const link = await providerUrlOf(t, created.authLink)
		expect(link.pathname).toBe('/common/oauth2/v2.0/authorize')
		expect(link.searchParams.get('code_challenge_method')).toBe('S256')
		expect(link.searchParams.get('scope')?.split(' ')).toEqual(['offline_access', 'User.Read', 'Files.ReadWrite.All'])
		expect(link.searchParams.get('redirect_uri')).toBe(`${h.publicUrl}/v3/connections/auth/callback/onedrive`)
		expect(emulator.tenants.at(-1)).toBe('common')
		expect(synced).toMatchObject({ provider: 'onedrive', status: 'active', email: 'ada@contoso.example' })
		expect(synced.lastSyncRun).toMatchObject({ status: 'completed', added: 6, failed: 0 })

		// Each use refreshed the 30-second token; the emulator refuses a used refresh token, so every refresh
		// succeeded only because the rotated one was kept, and the stored one is the newest.
		expect(emulator.log.filter((line) => line === 'POST refresh').length).toBeGreaterThan(refreshesBefore)
		const stored = await h.deps.storage.connections.byId(id)
		expect(openSecrets(h.deps.secrets, stored!).tokens?.refreshToken).toBe(emulator.latestRefreshToken('ada'))
		// Downloads went to the pre-authenticated host without the bearer token.
		expect(emulator.downloadAuthorizations.length).toBeGreaterThanOrEqual(6)
		expect(emulator.downloadAuthorizations.every((header) => header === null)).toBe(true)

		const pdfItem = (await h.items(id)).find((item) => item.externalId === pdf)!
		const done = await t.waitForStatus(pdfItem.documentId)
		expect(done).toMatchObject({ status: 'done', type: 'pdf', containerTag: 'ada', connectionId: id })
		expect(done.metadata).toMatchObject({ provider: 'onedrive', externalId: pdf, sourceType: 'onedrive' })
		for (const item of await h.items(id)) {
			expect((await t.waitForStatus(item.documentId)).status).toBe('done')
		}
		const search = await t.json('POST', '/v3/search', { q: 'when does the harbour ferry leave', containerTag: 'ada' })
		expect(search.body.results[0]?.documentId).toBe(pdfItem.documentId)

		const resources = await t.json('GET', `/v3/connections/${id}/resources`)
		expect(resources.status).toBe(200)
		expect(resources.body.resources).toEqual([expect.objectContaining({ id: docs, name: 'Docs', type: 'folder' })])
	}, 90_000)

	it('syncs incrementally from the deltaLink: changes update, the deleted facet deletes, nothing changed stays', async () => {
		const drive = emulator.drive('bob')
		const a = drive.addFile('a.txt', 'Alpha is the first letter.')
		const b = drive.addFile('b.txt', 'Beta is the second letter.')
		drive.addFile('c.md', '# Gamma\n\nThe third letter.')
		const { id, synced } = await h.connect('bob')
		expect(synced.lastSyncRun).toMatchObject({ added: 3 })
		const bDocument = (await h.items(id)).find((item) => item.externalId === b)!.documentId

		drive.updateFile(a, 'Alpha was renamed to Aleph.')
		drive.remove(b)
		const d = drive.addFile('d.txt', 'Delta is the fourth letter.')
		const downloads = emulator.downloadCount()
		const after = await h.sync(id, 'bob')
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', added: 1, updated: 1, deleted: 1 })
		expect(emulator.log.some((line) => line.startsWith('GET delta since'))).toBe(true)
		expect(emulator.downloadCount() - downloads).toBe(2)
		expect((await t.json('GET', `/v3/documents/${bDocument}`)).status).toBe(404)
		expect(await h.externalIds(id)).toContain(d)

		const quiet = await h.sync(id, 'bob')
		expect(quiet.lastSyncRun).toMatchObject({ status: 'completed', added: 0, updated: 0, deleted: 0 })
	}, 60_000)

	it('answers a 410 (resyncRequired) by listing the drive again and deleting what it no longer holds', async () => {
		const drive = emulator.drive('cy')
		const x = drive.addFile('x.txt', 'X marks the spot.')
		const y = drive.addFile('y.txt', 'Y is a question.')
		const z = drive.addFile('z.txt', 'Z is the last letter.')
		const { id } = await h.connect('cy')
		drive.purge(y)
		drive.updateFile(x, 'X marks another spot.')
		drive.forceResync()
		const downloads = emulator.downloadCount()
		const after = await h.sync(id, 'cy')
		expect(emulator.log).toContain('410 delta')
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', updated: 1, deleted: 1, added: 0 })
		expect(emulator.downloadCount() - downloads).toBe(1)
		expect(await h.externalIds(id)).toEqual([x, z].sort())
		// The new deltaLink works: the next sync is incremental again.
		const quiet = await h.sync(id, 'cy')
		expect(quiet.lastSyncRun).toMatchObject({ status: 'completed', added: 0, updated: 0, deleted: 0 })
	}, 60_000)

	it('syncs only chosen folders: others are ignored, items moved out are deleted, folders are checked', async () => {
		const drive = emulator.drive('dee')
		const work = drive.addFolder('Work')
		const deep = drive.addFolder('Deep', work)
		const personal = drive.addFolder('Personal')
		const plan = drive.addFile('plan.txt', 'The launch plan is ready.', work)
		const deepFile = drive.addFile('deep.txt', 'Deep down in the work folder.', deep)
		drive.addFile('diary.txt', 'Dear diary.', personal)
		drive.addFile('root.txt', 'At the root.')
		const { id, synced } = await h.connect('dee')
		expect(synced.lastSyncRun).toMatchObject({ added: 4 })

		const children = await t.json('GET', `/v3/connections/${id}/resources?parent_id=${work}`)
		expect(children.body.resources.map((r: { name: string }) => r.name)).toEqual(['Deep'])
		const { connection } = await h.configure(id, [{ id: work }])
		expect(connection.lastSyncRun).toMatchObject({ status: 'completed', deleted: 2 })
		expect(await h.externalIds(id)).toEqual([plan, deepFile].sort())

		drive.addFile('new.txt', 'A new personal note.', personal)
		const inWork = drive.addFile('new-work.txt', 'A new work note.', work)
		expect((await h.sync(id, 'dee')).lastSyncRun).toMatchObject({ added: 1 })
		expect(await h.externalIds(id)).toEqual([plan, deepFile, inWork].sort())

		drive.move(plan, personal)
		expect((await h.sync(id, 'dee')).lastSyncRun).toMatchObject({ deleted: 1 })
		// A folder moved out: delta lists the folder only, so the drive is listed again and what was under it goes.
		drive.move(deep, personal)
		expect((await h.sync(id, 'dee')).lastSyncRun).toMatchObject({ deleted: 1 })
		expect(await h.externalIds(id)).toEqual([inWork])

		for (const resources of [[{ id: inWork }], [{ id: 'F-unknown' }], [{ name: 'no id' }]]) {
			const refused = await t.json('POST', `/v3/connections/${id}/configure`, { resources })
			expect(refused.status).toBe(400)
			expect(refused.body.error).toBeTruthy()
		}
		expect(await h.externalIds(id)).toEqual([inWork])
	}, 90_000)

	it('deletes what was under a deleted folder, which delta does not list', async () => {
		const drive = emulator.drive('max')
		const archive = drive.addFolder('Archive')
		const old = drive.addFolder('Old', archive)
		drive.addFile('a.txt', 'Archived note A.', archive)
		drive.addFile('b.txt', 'Archived note B.', old)
		const kept = drive.addFile('kept.txt', 'Kept at the root.')
		const { id } = await h.connect('max')
		expect(await h.items(id)).toHaveLength(3)
		drive.remove(archive)
		const after = await h.sync(id, 'max')
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', deleted: 2, added: 0 })
		expect(await h.externalIds(id)).toEqual([kept])
	}, 60_000)

	it('skips a file over the upload cap, and fails an unreadable file or a failed download item by item', async () => {
		const drive = emulator.drive('eve')
		drive.addFile('small.txt', 'Small enough to import.')
		const big = drive.addFile('big.txt', 'x'.repeat(MAX_FILE_BYTES + 1))
		const garbage = drive.addFile('garbage.bin', binaryGarbage(4096))
		const broken = drive.addFile('broken.txt', 'The storage node loses this one.')
		emulator.failDownload(broken)
		const { id, synced } = await h.connect('eve')
		expect(synced.lastSyncRun).toMatchObject({ status: 'completed', added: 1, skipped: 1, failed: 2 })
		expect(emulator.log).not.toContain(`GET content ${big}`)
		const failures = await t.json('GET', `/v3/connections/${id}/sync-runs/${synced.lastSyncRun.id}/failures`)
		const failed = failures.body.failures.map((failure: { externalId: string }) => failure.externalId).sort()
		expect(failed).toEqual([broken, garbage].sort())
	}, 60_000)

	it('subscribes with the validation handshake and syncs on a notification; forged ones get 401', async () => {
		const drive = emulator.drive('fay')
		drive.addFile('first.txt', 'The first file.')
		const { id } = await h.connect('fay')
		const { configured } = await h.configure(id, [])
		expect(configured).toMatchObject({ success: true, webhooksRegistered: 1 })
		const [subscription] = emulator.subscriptions('fay')
		expect(subscription!.notificationUrl).toBe(`${h.publicUrl}/v3/connections/webhooks/onedrive`)
		expect(emulator.handshakes.at(-1)).toMatchObject({ ok: true, contentType: expect.stringMatching(/^text\/plain/) })
		const lifetime = Date.parse(subscription!.expirationDateTime) - Date.now()
		expect(lifetime).toBeLessThanOrEqual(MAX_SUBSCRIPTION_MINUTES * 60_000)
		expect(lifetime).toBeGreaterThan(28 * 24 * 3_600_000)

		// The handshake is answered as the plain, URL-decoded token.
		const handshake = await h.webhook(`?validationToken=${encodeURIComponent('Validation: a b&c')}`)
		expect(handshake.status).toBe(200)
		expect(handshake.headers.get('content-type')).toStartWith('text/plain')
		expect(await handshake.text()).toBe('Validation: a b&c')

		const runs = async () => (await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns.length
		const count = await runs()
		const forged = await emulator.notify(subscription!.id, { clientState: 'not the secret' })
		expect(forged.status).toBe(401)
		expect(JSON.parse(forged.body).error).toBe('Webhook refused')
		const unknown = await emulator.notify(subscription!.id, { subscriptionId: 'sub-unknown' })
		expect(unknown.status).toBe(401)
		expect((await h.webhook('', 'not json')).status).toBe(401)
		await Bun.sleep(1500)
		expect(await runs()).toBe(count)

		const pushed = drive.addFile('pushed.txt', 'Arrived after a notification.')
		const since = new Date().toISOString()
		const accepted = await emulator.notify(subscription!.id)
		expect(accepted.status).toBe(202)
		const synced = await h.settled(id, since)
		expect(synced.lastSyncRun.trigger).toBe('webhook')
		expect(await h.externalIds(id)).toContain(pushed)
	}, 60_000)

	it('authorizes and syncs without a subscription when Graph cannot reach the notification URL', async () => {
		emulator.drive('lee').addFile('l.txt', 'Lee lives by the lake.')
		emulator.refuseSubscriptions(true)
		try {
			const { id, synced } = await h.connect('lee')
			expect(synced).toMatchObject({ status: 'active' })
			expect(synced.lastSyncRun).toMatchObject({ status: 'completed', added: 1 })
			expect(emulator.subscriptions('lee')).toEqual([])
			const configured = await t.json('POST', `/v3/connections/${id}/configure`, { resources: [] })
			expect(configured.body).toMatchObject({ success: true, webhooksRegistered: 0 })
		} finally {
			emulator.refuseSubscriptions(false)
		}
	}, 60_000)

	it('renews on reauthorizationRequired, subscribes again when Graph dropped the subscription, renews before expiry', async () => {
		emulator.drive('gil').addFile('g.txt', 'Gil keeps a garden.')
		const { id } = await h.connect('gil')
		const first = emulator.subscriptions('gil')[0]!
		const storedRoute = async () => (await h.deps.storage.connections.subscriptions(id)).map((s) => s.routeKey)
		expect(await storedRoute()).toEqual([first.id])

		const reauthorize = await emulator.lifecycle(first.id, 'reauthorizationRequired')
		expect(reauthorize.status).toBe(202)
		await waitFor(async () => emulator.log.includes(`PATCH subscription ${first.id}`))

		// Graph dropped it without a word (drive items get no subscriptionRemoved): the hourly renewal's PATCH answers
		// 404, and a new subscription takes the old one's place.
		emulator.dropSubscription(first.id)
		const [dropped] = await h.deps.storage.connections.subscriptions(id)
		await h.deps.storage.connections.setSubscriptionExpiry(dropped!.id, new Date(Date.now() + 3_600_000).toISOString())
		await renewSubscriptions(h.deps)
		expect(emulator.subscriptions('gil')).toHaveLength(1)
		const second = emulator.subscriptions('gil')[0]!
		expect(second.id).not.toBe(first.id)
		expect(second.notificationUrl).toBe(`${h.publicUrl}/v3/connections/webhooks/onedrive`)
		expect(await storedRoute()).toEqual([second.id])
		expect((await emulator.notify(second.id)).status).toBe(202)

		// Core's hourly renewal takes subscriptions lapsing within a day: this one is made to lapse in an hour.
		const [stored] = await h.deps.storage.connections.subscriptions(id)
		await h.deps.storage.connections.setSubscriptionExpiry(stored!.id, new Date(Date.now() + 3_600_000).toISOString())
		await renewSubscriptions(h.deps)
		expect(emulator.log).toContain(`PATCH subscription ${second.id}`)
		const [renewed] = await h.deps.storage.connections.subscriptions(id)
		expect(Date.parse(renewed!.expiresAt!)).toBeGreaterThan(Date.now() + 28 * 24 * 3_600_000)
		expect(renewed!.expiresAt).toBe(emulator.subscriptions('gil')[0]!.expirationDateTime)
	}, 60_000)

	it('waits out throttling: a 429 is retried after its Retry-After', async () => {
		const drive = emulator.drive('hal')
		const { id } = await h.connect('hal')
		const file = drive.addFile('patient.txt', 'Patience is a virtue.')
		emulator.throttle(1, 1)
		const after = await h.sync(id, 'hal')
		expect(after.lastSyncRun).toMatchObject({ status: 'completed', added: 1, failed: 0 })
		expect(await h.externalIds(id)).toEqual([file])
		const index = emulator.requests.findIndex((request) => request.status === 429)
		expect(index).toBeGreaterThanOrEqual(0)
		const retried = emulator.requests[index + 1]!
		expect(retried.path).toBe(emulator.requests[index]!.path)
		expect(retried.at - emulator.requests[index]!.at).toBeGreaterThanOrEqual(950)
	}, 60_000)

	it('deletes a connection with its subscription and documents', async () => {
		emulator.drive('ned').addFile('n.txt', 'Ned naps at noon.')
		const { id } = await h.connect('ned')
		const documents = (await h.items(id)).map((item) => item.documentId)
		const subscription = emulator.subscriptions('ned')[0]!
		const deleted = await t.json('DELETE', `/v3/connections/${id}`)
		expect(deleted).toEqual({ status: 200, body: { id, provider: 'onedrive' } })
		expect(emulator.log).toContain(`DELETE subscription ${subscription.id}`)
		expect(emulator.subscriptions('ned')).toEqual([])
		for (const document of documents) expect((await t.json('GET', `/v3/documents/${document}`)).status).toBe(404)
	}, 60_000)
})

describe('OneDrive connector: applications and configuration', () => {
	it("reads Graph's absolute next and delta links as paths the client takes, on any cloud", () => {
		const token = 'aTE09NjM4OTk%3D'
		expect(
			relativeLink(
				`https://graph.microsoft.com/v1.0/me/drive/root/delta?token=${token}`,
				'https://graph.microsoft.com',
			),
		).toBe(`/me/drive/root/delta?token=${token}`)
		expect(
			relativeLink(
				'https://graph.microsoft.us/v1.0/me/drive/root/delta?$skiptoken=x&$select=id',
				'https://graph.microsoft.us',
			),
		).toBe('/me/drive/root/delta?$skiptoken=x&$select=id')
		expect(relativeLink('http://127.0.0.1:4000/v1.0/me/drive/root/delta?token=d.1.7', 'http://127.0.0.1:4000')).toBe(
			'/me/drive/root/delta?token=d.1.7',
		)
		expect(relativeLink('/me/drive/root/delta?$select=id', 'https://graph.microsoft.com')).toBe(
			'/me/drive/root/delta?$select=id',
		)
	})

	it('takes sovereign cloud endpoints and the tenant from the environment', async () => {
		const [connector] = await connectorsFromEnv({
			MEMORY_CONNECTORS: 'onedrive',
			MICROSOFT_GRAPH_URL: 'https://graph.microsoft.us',
			MICROSOFT_LOGIN_URL: 'https://login.microsoftonline.us/',
			MICROSOFT_TENANT: 'organizations',
		})
		expect(connector!.provider).toBe('onedrive')
		expect(connector!.auth).toMatchObject({
			type: 'oauth2',
			authorizeUrl: 'https://login.microsoftonline.us/organizations/oauth2/v2.0/authorize',
			tokenUrl: 'https://login.microsoftonline.us/organizations/oauth2/v2.0/token',
			pkce: true,
		})
		const base = ['storage', 'embedder'].map(
			(kind) =>
				({ apiVersion: PLUGIN_API_VERSION, kind, name: kind, space: { id: 't', dimensions: 3 } }) as unknown as Plugin,
		)
		expect(validatePlugins([...base, connector!])).toHaveLength(3)
	})
})
