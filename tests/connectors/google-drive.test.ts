import { afterAll, beforeAll, expect, it } from 'bun:test'
import { googleDrive } from '../../connectors/google-drive/index.ts'
import { SYNC_QUEUE } from '../../core/connectors/deps.ts'
import { renewSubscriptions } from '../../core/connectors/lifecycle.ts'
import { authorizeThroughEmulator, providerUrlOf, syncSettled } from '../../testkit/connections.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { type GoogleEmulator, startGoogleEmulator } from '../../testkit/emulators/google.ts'
import { addDriveRoutes, type Channel, type DriveEmulator } from '../../testkit/emulators/google-drive.ts'
import { binaryGarbage, samplePdf, sampleXlsx } from '../../testkit/sample-files.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const WEBHOOK = '/v3/connections/webhooks/google-drive'

/** A service with the Drive connector pointed at the emulator, and helpers to walk a connection through OAuth. */
async function harness(driver: 'pglite' | 'postgres', google: GoogleEmulator) {
	const endpoints = { accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url }
	const t = await startTestService(driver, {
		env: {
			GOOGLE_CLIENT_ID: google.clientId,
			GOOGLE_CLIENT_SECRET: google.clientSecret,
			MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
		},
		plugins: [googleDrive(endpoints)],
		extractor: null,
	})
	const settled = (id: string, since: string, key = t.key) => syncSettled(t, id, since, key)
	/** Creates a connection, consents at the emulator and lands on the callback; waits for its first sync. */
	const connect = async (body: Record<string, unknown> = {}, key = t.key) => {
		const { created, landed } = await authorizeThroughEmulator(
			t,
			'google-drive',
			{ containerTag: 'drive', redirectUrl: 'https://app.example/connected', ...body },
			key,
		)
		expect(landed.status).toBe(302)
		expect(new URL(landed.headers.get('location')!).searchParams.get('error')).toBeNull()
		const id = created.body.id as string
		const connection = await settled(id, '', key)
		return { id, created: created.body, connection }
	}
	const sync = async (id: string, tag: string, key = t.key) => {
		const since = new Date().toISOString()
		const started = await t.request('POST', '/v3/connections/google-drive/import', {
			body: { containerTags: [tag] },
			key,
		})
		expect(started.status).toBe(202)
		return settled(id, since, key)
	}
	const items = (id: string) => t.service.plugins.storage.connections.items(id)
	const subscriptions = (id: string) => t.service.plugins.storage.connections.subscriptions(id)
	const notify = (headers: Record<string, string>) => t.request('POST', WEBHOOK, { body: '', headers, key: null })
	return { t, connect, settled, sync, items, subscriptions, notify }
}

describeEachDriver('Google Drive connector', (driver) => {
	let google: GoogleEmulator
	let drive: DriveEmulator
	let h: Awaited<ReturnType<typeof harness>>
	let t: TestService
	beforeAll(async () => {
		// Access tokens live 30 s: core refreshes one on every use (a minute's margin).
		google = startGoogleEmulator({ tokenLifetimeSeconds: 30 })
		drive = addDriveRoutes(google, { channelLifetimeMs: 3600_000 })
		h = await harness(driver, google)
		t = h.t
	}, 180_000)
	afterAll(async () => {
		await t.stop()
		google.stop()
	}, 60_000)

	const channelOf = (id: string) => drive.channels.find((channel) => channel.id === id) as Channel

	it('authorizes with offline access and PKCE, names the account, imports every kind and makes files searchable', async () => {
		const folder = drive.folder('Imported')
		drive.doc('Handbook', '# Handbook\n\nThe team ships on Thursdays.', folder)
		drive.slides('Roadmap', 'Roadmap\nLaunch the garden app in May', folder)
		drive.sheet(
			'Inventory',
			sampleXlsx([
				{
					name: 'Tools',
					rows: [
						['Item', 'Count'],
						['Shovel', 4],
					],
				},
				{
					name: 'Seeds',
					rows: [
						['Item', 'Count'],
						['Marigold seeds', 250],
					],
				},
			]),
			'Item,Count\nShovel,4',
			folder,
		)
		drive.file(
			'budget.pdf',
			'application/pdf',
			await samplePdf('Budget', ['The greenhouse budget is 9400 euros.']),
			folder,
		)
		const { id, created, connection } = await h.connect()
		const link = await providerUrlOf(t, created.authLink)
		expect(link.origin).toBe(google.url)
		expect(link.searchParams.get('access_type')).toBe('offline')
		expect(link.searchParams.get('prompt')).toBe('consent')
		expect(link.searchParams.get('code_challenge_method')).toBe('S256')
		expect(link.searchParams.get('redirect_uri')).toBe('http://localhost/v3/connections/auth/callback/google-drive')
		expect(connection).toMatchObject({ provider: 'google-drive', status: 'active', email: google.email })
		// The whole Drive (nothing chosen yet): this folder's four files, and one channel on the changes feed.
		expect(connection.lastSyncRun).toMatchObject({ status: 'completed', added: 4, failed: 0 })
		const [subscription] = await h.subscriptions(id)
		expect(channelOf(subscription!.externalId)).toMatchObject({
			address: 'http://localhost/v3/connections/webhooks/google-drive',
			stopped: false,
		})
		expect(google.log.filter((line) => line === 'POST /token refresh').length).toBeGreaterThan(0)
		// Synced every 4 hours (at a minute of the hour jittered by the connection id).
		const schedule = (await t.service.queue.scheduled(SYNC_QUEUE)).find((s) => s.key === id)
		expect(schedule?.cron).toMatch(/^\d+ \d-23\/4 \* \* \*$/)

		const imported = (await t.json('POST', '/v3/connections/google-drive/documents', { containerTags: ['drive'] })).body
		expect(imported).toHaveLength(4)
		for (const document of imported) expect((await t.waitForStatus(document.id)).status).toBe('done')
		const search = async (q: string) =>
			(await t.json('POST', '/v3/search', { q, containerTag: 'drive' })).body.results[0]?.documentId
		const byTitle = (title: string) => imported.find((d: { title: string }) => d.title?.startsWith(title)).id
		expect(await search('greenhouse budget euros')).toBe(byTitle('budget'))
		expect(await search('marigold seeds count')).toBe(byTitle('Inventory'))
		expect(await search('when does the team ship')).toBe(byTitle('Handbook'))
		const handbook = (await t.json('GET', `/v3/documents/${byTitle('Handbook')}`)).body
		expect(handbook.metadata).toMatchObject({ provider: 'google-drive', sourceType: 'google_doc' })
		expect(handbook.connectionId).toBe(id)
	}, 90_000)

	it('syncs incrementally: edits update, trashed and removed files are deleted, nothing changed changes nothing', async () => {
		const { id } = await h.connect({ containerTag: 'incremental' })
		const before = await h.items(id)
		const a = drive.doc('Alpha', 'first version')
		const b = drive.doc('Beta', 'to be trashed')
		const c = drive.file('c.txt', 'text/plain', 'to be removed')
		let run = (await h.sync(id, 'incremental')).lastSyncRun
		expect(run).toMatchObject({ status: 'completed', added: 3 })
		drive.update(a.id, { exports: { 'text/markdown': 'second version' } })
		drive.trash(b.id)
		drive.remove(c.id)
		run = (await h.sync(id, 'incremental')).lastSyncRun
		expect(run).toMatchObject({ status: 'completed', added: 0, updated: 1, deleted: 2 })
		const alpha = (await h.items(id)).find((item) => item.externalId === a.id)!
		expect((await t.waitForStatus(alpha.documentId)).content).toContain('second version')
		expect((await h.items(id)).length).toBe(before.length + 1)
		run = (await h.sync(id, 'incremental')).lastSyncRun
		expect(run).toMatchObject({ status: 'completed', added: 0, updated: 0, deleted: 0 })
	}, 60_000)

	it('takes change notifications: a valid one syncs; a forged token or an unknown channel get 401, a replay is acknowledged', async () => {
		const { id } = await h.connect({ containerTag: 'hooks' })
		const channel = channelOf((await h.subscriptions(id))[0]!.externalId)
		const runs = async () => (await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns.length
		const count = await runs()

		const forged = await h.notify(drive.notification(channel, 'change', { token: 'guessed' }))
		expect(forged.status).toBe(401)
		expect(((await forged.json()) as any).error).toBe('Webhook refused')
		const unknown = await h.notify(drive.notification(channel, 'change', { id: crypto.randomUUID() }))
		expect(unknown.status).toBe(401)
		// A real token moved onto another channel id does not verify either (the token is bound to its channel).
		const other = channelOf((await h.subscriptions((await h.connect({ containerTag: 'hooks-2' })).id))[0]!.externalId)
		const swapped = await h.notify(drive.notification(other, 'change', { token: channel.token }))
		expect(swapped.status).toBe(401)
		const handshake = await h.notify(drive.notification(channel, 'sync'))
		expect(handshake.status).toBe(202)
		expect(((await handshake.json()) as any).accepted).toBe(0)
		await Bun.sleep(1000)
		expect(await runs()).toBe(count)

		const added = drive.doc('Pushed', 'arrived by notification')
		const since = new Date().toISOString()
		const headers = drive.notification(channel)
		const accepted = await h.notify(headers)
		expect(accepted.status).toBe(202)
		expect(((await accepted.json()) as any).accepted).toBe(1)
		const synced = await h.settled(id, since)
		expect(synced.lastSyncRun.trigger).toBe('webhook')
		expect((await h.items(id)).some((item) => item.externalId === added.id)).toBe(true)
		const replayed = await h.notify(headers)
		// A verified duplicate is acknowledged (a provider redelivers anything else) and starts nothing.
		expect(replayed.status).toBe(202)
		expect(await replayed.json()).toEqual({ accepted: 0 })
	}, 60_000)

	it('still connects and syncs when Google refuses the channel (no public HTTPS address)', async () => {
		drive.state.httpsOnly = true
		try {
			const { id, connection } = await h.connect({ containerTag: 'no-https' })
			expect(connection).toMatchObject({ status: 'active', lastSyncRun: { status: 'completed' } })
			expect(await h.subscriptions(id)).toEqual([])
			expect((await t.service.queue.scheduled(SYNC_QUEUE)).map((s) => s.key)).toContain(id)
		} finally {
			drive.state.httpsOnly = false
		}
	}, 60_000)

	it('renews a channel before it lapses: a new channel first, then the old one stopped', async () => {
		const { id } = await h.connect({ containerTag: 'renewal' })
		const [old] = await h.subscriptions(id)
		// Channels here live an hour, so they lapse within the renewal window of a day.
		expect(Date.parse(old!.expiresAt!)).toBeLessThan(Date.now() + 3600_000 + 5_000)
		await renewSubscriptions(t.service.services.connectorDeps)
		const [renewed, ...rest] = await h.subscriptions(id)
		expect(rest).toEqual([])
		expect(renewed!.externalId).not.toBe(old!.externalId)
		expect(channelOf(old!.externalId).stopped).toBe(true)
		expect(channelOf(renewed!.externalId).stopped).toBe(false)
		const stale = await h.notify(drive.notification(channelOf(old!.externalId)))
		expect(stale.status).toBe(401)
		const fresh = await h.notify(drive.notification(channelOf(renewed!.externalId)))
		expect(fresh.status).toBe(202)
		await h.settled(id, new Date(Date.now() - 1000).toISOString())
	}, 60_000)

	it('sets the folder selection through configure: only its descendants stay, and the channel is replaced', async () => {
		const chosen = drive.folder('Chosen')
		const inside = drive.doc('Inside', 'in the chosen folder', chosen)
		const { id } = await h.connect({ containerTag: 'folders' })
		expect((await h.items(id)).length).toBeGreaterThan(1)
		const [before] = await h.subscriptions(id)
		const since = new Date().toISOString()
		const configured = await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ id: chosen }] })
		expect(configured).toMatchObject({ status: 200, body: { success: true, webhooksRegistered: 1 } })
		await h.settled(id, since)
		expect((await h.items(id)).map((item) => item.externalId)).toEqual([inside.id])
		expect(channelOf(before!.externalId).stopped).toBe(true)
		const bad = await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ id: inside.id }] })
		expect(bad.status).toBe(400)
		expect(bad.body.details).toContain('not a folder')
		const listed = await t.json('GET', `/v3/connections/${id}/resources?page=1&per_page=50`)
		expect(listed.body.resources).toEqual(expect.arrayContaining([expect.objectContaining({ id: chosen })]))
	}, 60_000)

	it('fails a file of an unsupported type alone, and skips kinds Drive cannot export and files over 50 MB', async () => {
		const { id } = await h.connect({ containerTag: 'mixed' })
		const folder = drive.folder('Mixed')
		const garbage = drive.file('firmware.bin', 'application/octet-stream', binaryGarbage(2048), folder)
		drive.googleFile('Survey', 'application/vnd.google-apps.form', {}, folder)
		drive.file('movie.mp4', 'video/mp4', 'small here', folder, 80 * 1024 * 1024)
		const fine = drive.doc('Fine', 'imported anyway', folder)
		const since = new Date().toISOString()
		await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ id: folder }] })
		const connection = await h.settled(id, since)
		expect(connection.lastSyncRun).toMatchObject({ status: 'completed', added: 1, failed: 1, skipped: 2 })
		const failures = (
			await t.json('GET', `/v3/connections/${id}/sync-runs/${connection.lastSyncRun.id}/failures`)
		).body.failures.map((f: { externalId: string }) => f.externalId)
		expect(failures).toEqual([garbage.id])
		expect((await h.items(id)).map((item) => item.externalId)).toEqual([fine.id])
	}, 60_000)

	it("deletes a connection: its channel stopped, its documents gone, the account's grant kept for its other connections", async () => {
		const folder = drive.folder('Doomed')
		drive.doc('Doomed doc', 'goes away', folder)
		const { id } = await h.connect({ containerTag: 'gone' })
		const since = new Date().toISOString()
		await t.json('POST', `/v3/connections/${id}/configure`, { resources: [{ id: folder }] })
		await h.settled(id, since)
		const docs = (await h.items(id)).map((item) => item.documentId)
		expect(docs.length).toBe(1)
		const [subscription] = await h.subscriptions(id)
		const revokes = google.log.filter((line) => line === 'POST /revoke').length
		expect((await t.json('DELETE', `/v3/connections/${id}`)).body).toEqual({ id, provider: 'google-drive' })
		expect(channelOf(subscription!.externalId).stopped).toBe(true)
		// Earlier connections of this file hold the same account's grant to the same application: not revoked.
		expect(google.log.filter((line) => line === 'POST /revoke').length).toBe(revokes)
		for (const doc of docs) expect((await t.json('GET', `/v3/documents/${doc}`)).status).toBe(404)
	}, 60_000)
})
