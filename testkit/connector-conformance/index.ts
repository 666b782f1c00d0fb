import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SYNC_QUEUE } from '../../core/connectors/deps.ts'
import type { AnyConnector } from '../../core/index.ts'
import { authorizeLink, syncSettled } from '../connections.ts'
import type { FaultLayer } from '../emulators/faults.ts'
import { type ServiceClient, startTestService, type TestService } from '../service.ts'
import { killAndResume } from './kill-resume.ts'

/** A provider emulator as the conformance suite drives it. Items are named by the suite; contents are text. */
export interface ConformanceEmulator {
	start(): void | Promise<void>
	stop(): void | Promise<void>
	/** Adds items, or changes the content of items it holds. */
	seed(items: Record<string, string>): void | Promise<void>
	/** Removes items. */
	remove(ids: string[]): void | Promise<void>
	/** Whether the provider is reached over HTTP through an emulator with the fault layer. */
	http: boolean
	/** The connector stops at documentLimit itself (a crawler's page budget): the run completes rather than being cut. */
	selfLimited?: boolean
	/**
	 * Complete listings an item must be missing from, in a row, before it is deleted (default 1): 2 for a provider
	 * whose listings leave items out for a while (Granola, while a note is processed), or that confirms a
	 * disappearance on a later run (Notion: a page answering 404 on two runs in a row).
	 */
	deletionConfirmations?: number
	/** The connection holds a grant or key the provider can revoke (default true; a public website holds none). */
	revocable?: boolean
	/** The emulator's fault layer (testkit/emulators/faults.ts), once started; null for a provider without HTTP. */
	faults(): FaultLayer | null
	/** Paths of the requests that read one new item's content: failing them fails that item only. */
	itemReads: RegExp
	/** Paths of the requests that list items: failing them leaves the listing incomplete. */
	listing: RegExp
	/** OAuth refreshes the emulator answered so far (OAuth providers). */
	refreshes?(): number
	/** Requests matching `itemReads` that one item takes (default 1). */
	readsPerItem?: number
	/** Listings the emulator served from their first page so far, for a connector that resumes a listing mid-way. */
	fullListings?(): number
	/**
	 * Every run asks for every item again, conditionally (a crawler's validators, answered 304 when unchanged): the
	 * kill -9 case then does not bound the reads after the kill.
	 */
	revalidatesItems?: boolean
}

export interface ConformanceOptions {
	name: string
	/** The connector, built once the emulator runs (it points at the emulator's address). */
	connector(): AnyConnector
	emulator: ConformanceEmulator
	/** The service's environment (OAuth applications). */
	env?(): Record<string, string>
	/**
	 * Creates a connection with `body` (container tag, documentLimit), authorizes it through the emulator when the
	 * provider uses OAuth, configures what it syncs, and answers its id once the sync that follows has settled.
	 */
	connect(t: ServiceClient, body: { containerTag: string; documentLimit?: number }, key: string): Promise<string>
	/**
	 * The environment of a server process (`server/main.ts`) that registers this connector against the emulator, for
	 * the kill -9 case: `MEMORY_CONNECTORS` and the provider's URLs, or `MEMORY_CONFIG` naming a config file. The suite
	 * adds its store and `env()`. An emulator without HTTP cannot be slowed by the suite: the connector this server
	 * runs must then take long enough per item (a tenth of a second) to be killed in its middle.
	 */
	server(): Record<string, string> | Promise<Record<string, string>>
	/** The external id the connector gives the item the suite named `id`. */
	externalId(id: string): string
	/** The provider uses OAuth: a 401 is answered by one refresh. */
	oauth: boolean
}

/**
 * The connector conformance suite: every connector runs it against its emulator. Full and incremental sync,
 * unchanged items skipped, an item failure read again on a later run, a rate limit waited out, an incomplete listing
 * deleting nothing, a 401 refreshed once (OAuth), a revoked grant expiring the connection, documentLimit, tenant
 * isolation, and a sync killed with SIGKILL resumed without duplicates. Runs on the embedded store, with the real
 * runtime and queue (the kill -9 case in server processes of its own).
 */
export function connectorConformance(options: ConformanceOptions): void {
	const { emulator } = options
	describe(`${options.name} connector conformance`, () => {
		let t: TestService
		const held = new Map<string, string>()
		const store = () => t.service.services.connectorDeps.storage.connections
		const imported = async (id: string) => (await store().items(id)).map((item) => item.externalId).sort()
		const expected = () => [...held.keys()].map(options.externalId).sort()
		const seed = async (items: Record<string, string>) => {
			for (const [id, content] of Object.entries(items)) held.set(id, content)
			await emulator.seed(items)
		}
		const remove = async (ids: string[]) => {
			for (const id of ids) held.delete(id)
			await emulator.remove(ids)
		}
		let tags = 0
		const connect = async (extra: { documentLimit?: number } = {}, key = t.key) => {
			const containerTag = `conformance_${++tags}`
			return { id: await options.connect(t, { containerTag, ...extra }, key), containerTag }
		}
		/** Syncs the connection now and answers it once that sync settled. */
		const sync = async (id: string, containerTag: string) => {
			const since = new Date().toISOString()
			const answer = await t.request('POST', `/v3/connections/${options.connector().provider}/import`, {
				body: { containerTags: [containerTag] },
			})
			expect(answer.status).toBe(202)
			return syncSettled(t, id, since)
		}
		/** Connections with a scheduled sync. */
		const scheduled = async () => (await t.service.queue.scheduled(SYNC_QUEUE)).map((schedule) => schedule.key)
		/** The next sync lists everything (as it does after a reset or on its reconciliation schedule). */
		const fullNext = (id: string) => store().update(id, { cursor: null })

		beforeAll(async () => {
			await emulator.start()
			await seed({ alpha: 'Alpha is the first item.', bravo: 'Bravo is the second item.', charlie: 'Charlie, third.' })
			t = await startTestService('pglite', {
				plugins: [options.connector()],
				extractor: null,
				env: {
					MEMORY_CONNECTOR_RETRY_SECONDS: '0',
					MEMORY_CONNECTOR_LEASE_SECONDS: '5',
					MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
					...(options.env?.() ?? {}),
				},
			})
		}, 180_000)
		let stopped: Promise<void> | undefined
		/** Stops the in-process service once: its queue then runs no more syncs against the emulator. */
		const stopService = () => {
			stopped ??= t?.stop()
			return stopped
		}
		afterAll(async () => {
			await stopService()
			await emulator.stop()
		}, 60_000)

		it('imports every item on the first sync', async () => {
			const { id } = await connect()
			expect(await imported(id)).toEqual(expected())
			const connection = (await t.json('GET', `/v3/connections/${id}`)).body
			expect(connection).toMatchObject({ status: 'active', lastSyncRun: { status: 'completed' } })
		}, 90_000)

		it('syncs incrementally: a new item is added, a changed one updated', async () => {
			const { id, containerTag } = await connect()
			await seed({ delta: 'Delta arrived later.', alpha: 'Alpha was edited.' })
			const run = (await sync(id, containerTag)).lastSyncRun
			expect(run).toMatchObject({ status: 'completed', added: 1, updated: 1 })
			expect(await imported(id)).toEqual(expected())
		}, 90_000)

		it('skips unchanged items', async () => {
			const { id, containerTag } = await connect()
			const run = (await sync(id, containerTag)).lastSyncRun
			expect(run).toMatchObject({ status: 'completed', added: 0, updated: 0, deleted: 0 })
		}, 90_000)

		if (emulator.http) {
			const layer = () => emulator.faults()!

			it('reads an item that failed on a later run', async () => {
				const { id, containerTag } = await connect()
				layer().faults.only = emulator.itemReads
				layer().faults.burst5xx = 1_000
				await seed({ echo: 'Echo failed once.' })
				try {
					const failed = (await sync(id, containerTag)).lastSyncRun
					expect(failed.failed).toBeGreaterThanOrEqual(1)
					expect(await imported(id)).not.toContain(options.externalId('echo'))
				} finally {
					layer().reset()
				}
				const later = (await sync(id, containerTag)).lastSyncRun
				expect(later.status).toBe('completed')
				expect(await imported(id)).toEqual(expected())
			}, 180_000)

			it("waits out the provider's rate limit within the run", async () => {
				const { id, containerTag } = await connect()
				const faults = layer()
				faults.faults.rateLimitEvery = 3
				faults.faults.rateLimitSeconds = 1
				await seed({ foxtrot: 'Foxtrot came during a rate limit.', golf: 'Golf too.' })
				try {
					await fullNext(id)
					const run = (await sync(id, containerTag)).lastSyncRun
					expect(faults.counts.rateLimited).toBeGreaterThanOrEqual(1)
					expect(run).toMatchObject({ status: 'completed', failed: 0 })
				} finally {
					faults.reset()
				}
				expect(await imported(id)).toEqual(expected())
			}, 120_000)

			it('deletes nothing when the listing is incomplete, and deletes once it is whole', async () => {
				const { id, containerTag } = await connect()
				await remove(['bravo'])
				const faults = layer()
				faults.faults.only = emulator.listing
				faults.faults.burst5xx = 1_000
				try {
					await fullNext(id)
					const run = (await sync(id, containerTag)).lastSyncRun
					expect(run.deleted).toBe(0)
				} finally {
					faults.reset()
				}
				expect(await imported(id)).toContain(options.externalId('bravo'))
				await fullNext(id)
				for (let confirmation = 1; confirmation < (emulator.deletionConfirmations ?? 1); confirmation++) {
					expect((await sync(id, containerTag)).lastSyncRun.deleted).toBe(0)
				}
				expect((await sync(id, containerTag)).lastSyncRun.deleted).toBe(1)
				expect(await imported(id)).toEqual(expected())
			}, 120_000)

			if (options.oauth) {
				it('answers a 401 with one refresh and goes on', async () => {
					const { id, containerTag } = await connect()
					const before = emulator.refreshes?.() ?? 0
					layer().faults.refuseTokens = 1
					const connection = await sync(id, containerTag)
					expect(connection).toMatchObject({ status: 'active', lastSyncRun: { status: 'completed' } })
					if (emulator.refreshes) expect(emulator.refreshes() - before).toBe(1)
					layer().reset()
				}, 90_000)
			}

			if (emulator.revocable !== false) {
				it('expires the connection when the grant is revoked, keeping what it imported and stopping its schedule', async () => {
					const { id, containerTag } = await connect()
					const held = await imported(id)
					expect(await scheduled()).toContain(id)
					layer().faults.revoke = true
					try {
						await fullNext(id)
						await sync(id, containerTag)
						// The run is marked failed just before its connection is marked expired.
						let connection = (await t.json('GET', `/v3/connections/${id}`)).body
						for (let i = 0; i < 100 && connection.status === 'active'; i++) {
							await Bun.sleep(50)
							connection = (await t.json('GET', `/v3/connections/${id}`)).body
						}
						expect(connection).toMatchObject({
							status: 'expired',
							lastSyncRun: { status: 'failed', errorCode: 'auth_expired' },
						})
					} finally {
						layer().reset()
					}
					expect(await imported(id)).toEqual(held)
					expect(await scheduled()).not.toContain(id)
					if (options.connector().resources) {
						const resources = await t.json('GET', `/v3/connections/${id}/resources`)
						expect(resources.status).toBe(400)
						expect(resources.body.details).toContain('expired')
					}
				}, 90_000)
			}
		}

		if (options.oauth) {
			it("uses the organization's own OAuth application from settings, and says what to configure without one", async () => {
				const connector = options.connector()
				const { auth } = connector
				if (auth.type !== 'oauth2') throw new Error('oauth: true for a connector without OAuth')
				const key = auth.settingsKey
				// The emulator's application, which only the organization's settings name to a service without one.
				const app = options.env?.() ?? {}
				const [clientId, clientSecret] = [app[auth.env.clientId], app[auth.env.clientSecret]]
				if (!clientId || !clientSecret)
					throw new Error(`env() gives no ${auth.env.clientId} and ${auth.env.clientSecret}`)
				const bare = await startTestService('pglite', { plugins: [options.connector()], extractor: null })
				try {
					const refused = await bare.json('POST', `/v3/connections/${connector.provider}`, { containerTag: 'org_app' })
					expect(refused.status).toBe(400)
					expect(refused.body.details).toContain(auth.env.clientId)
					// Without a settings prefix organizations cannot bring their own: the server's application is the only one.
					if (!key) return
					expect(refused.body.details).toContain(`${key}ClientId`)
					const settings = {
						[`${key}ClientId`]: clientId,
						[`${key}ClientSecret`]: clientSecret,
						[`${key}CustomKeyEnabled`]: true,
					}
					expect((await bare.json('PATCH', '/v3/settings', settings)).status).toBe(200)
					const created = await bare.json('POST', `/v3/connections/${connector.provider}`, { containerTag: 'org_app' })
					expect(created.status).toBe(200)
					const { providerUrl, landed } = await authorizeLink(bare, created.body.authLink)
					expect(providerUrl.searchParams.get('client_id')).toBe(clientId)
					expect(await landed.json()).toMatchObject({ success: true, connectionId: created.body.id })
					const stored = await bare.service.plugins.storage.connections.byId(created.body.id)
					expect(JSON.stringify(stored?.app ?? null)).not.toContain(clientSecret)
				} finally {
					await bare.stop()
				}
			}, 90_000)
		}

		it('stops at documentLimit', async () => {
			const { id } = await connect({ documentLimit: 2 })
			const connection = (await t.json('GET', `/v3/connections/${id}`)).body
			if (emulator.selfLimited) expect(connection.lastSyncRun.status).toBe('completed')
			else
				expect(connection.lastSyncRun).toMatchObject({
					status: 'limit_reached',
					error: expect.stringContaining('documentLimit (2)'),
				})
			expect(await imported(id)).toHaveLength(2)
		}, 90_000)

		it("never lets one organization see, sync, configure or delete another's connection or documents", async () => {
			const { id, containerTag } = await connect()
			const provider = options.connector().provider
			const other = await t.createKey(`conformance-other-${options.name}`)
			for (const [method, path, body] of [
				['GET', `/v3/connections/${id}`],
				['GET', `/v3/connections/${id}/resources`],
				['GET', `/v3/connections/${id}/sync-runs`],
				['POST', `/v3/connections/${id}/configure`, { resources: [] }],
				['DELETE', `/v3/connections/${id}`],
			] as const) {
				expect({ method, path, status: (await t.json(method, path, body, other)).status }).toEqual({
					method,
					path,
					status: 404,
				})
			}
			const listed = await t.json('POST', '/v3/documents/list', { containerTags: [containerTag] }, other)
			expect(listed.body.pagination.totalItems).toBe(0)
			expect((await t.json('POST', '/v3/connections/list', {}, other)).body).toEqual([])
			expect((await t.json('POST', `/v3/connections/${provider}/documents`, {}, other)).body).toEqual([])
			const search = await t.json('POST', '/v3/search', { q: 'the second item', containerTag }, other)
			expect(search.body.results).toEqual([])
			// Another organization's import starts no sync of this connection.
			const runs = (await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns.length
			const foreign = await t.request('POST', `/v3/connections/${provider}/import`, { body: {}, key: other })
			expect(foreign.status).toBe(202)
			await Bun.sleep(500)
			expect((await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns.length).toBe(runs)
			expect((await t.json('GET', `/v3/connections/${id}`)).body.status).toBe('active')
		}, 90_000)

		// Last: the in-process service stops first. Its connections share the emulator, and the queue retries of their
		// earlier failed runs would otherwise read the case's new items during it, counted as the server's reads.
		it('resumes a sync killed with SIGKILL in its middle, importing every item once', async () => {
			await stopService()
			await killAndResume(options, seed, expected)
		}, 300_000)
	})
}
