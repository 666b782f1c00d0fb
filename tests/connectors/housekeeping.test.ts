import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { RENEW_QUEUE } from '../../core/connectors/deps.ts'
import {
	ABANDONED_AFTER_DAYS,
	DELIVERY_RETENTION_DAYS,
	pruneConnectorRecords,
	SYNC_RUNS_KEPT,
	TURN_IDLE_DAYS,
} from '../../core/connectors/housekeeping.ts'
import { syncSettled } from '../../testkit/connections.ts'
import { newConnection } from '../../testkit/contract/storage.contract.ts'
import { putItem, type ScriptedWorld, scriptedConnector, scriptedWorld } from '../../testkit/scripted-connector.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { waitFor } from '../../testkit/wait.ts'

const DAY_MS = 24 * 3_600_000
const worlds = new Map<string, ScriptedWorld>()

let t: TestService
const deps = () => t.service.services.connectorDeps
const store = () => deps().storage.connections

beforeAll(async () => {
	t = await startTestService('pglite', {
		plugins: [scriptedConnector('scripted', worlds, { readItem: true })],
		extractor: null,
	})
}, 120_000)
afterAll(async () => {
	await t?.stop()
}, 60_000)

describe('connector housekeeping', () => {
	it('the hourly renewal job keeps each connection’s newest finished runs and deletes the older ones', async () => {
		const world = scriptedWorld()
		putItem(world, 'a', 'Alpha')
		worlds.set('runs', world)
		const created = await t.json('POST', '/v3/connections/scripted', {
			containerTag: 'runs',
			metadata: { world: 'runs' },
		})
		expect(created.status).toBe(200)
		const id = created.body.id as string
		await syncSettled(t, id, '')
		const { orgId } = (await store().byId(id))!
		const runs = () => store().runs({ orgId }, id, 1_000)
		for (let i = 0; i < SYNC_RUNS_KEPT + 1; i++) {
			const run = await store().startRun(id, 'schedule')
			await store().updateRun(run.id, { status: 'completed', finished: true })
		}
		expect((await runs()).length).toBe(SYNC_RUNS_KEPT + 2)
		const newest = (await runs()).slice(0, SYNC_RUNS_KEPT).map((run) => run.id)

		await deps().queue.send(RENEW_QUEUE, {})
		const kept = await waitFor(async () => {
			const left = await runs()
			return left.length <= SYNC_RUNS_KEPT && left
		})
		expect(kept.map((run) => run.id)).toEqual(newest)
	}, 60_000)

	it('forgets a webhook delivery id after the longest redelivery window and a crawl turn idle for a day', async () => {
		const delivery = crypto.randomUUID()
		const turn = `web-crawler:housekeeping-${crypto.randomUUID()}`
		expect(await store().recordDelivery('github', delivery)).toBe(true)
		expect(await store().takeTurn(turn, 'crawl-a', 60_000)).toBe(0)
		await store().endTurn(turn, 'crawl-a', 0)
		const gap = 2 * DAY_MS

		const pruneAt = (days: number) => pruneConnectorRecords(deps(), Date.now() + days * DAY_MS)

		await pruneAt(TURN_IDLE_DAYS / 2)
		expect(await store().takeTurn(turn, 'crawl-b', 60_000, gap)).toBeGreaterThan(0)
		await pruneAt(TURN_IDLE_DAYS + 0.5)
		expect(await store().takeTurn(turn, 'crawl-b', 60_000, gap)).toBe(0)
		await pruneAt(DELIVERY_RETENTION_DAYS - 0.5)
		expect(await store().recordDelivery('github', delivery)).toBe(false)
		await pruneAt(DELIVERY_RETENTION_DAYS + 0.5)
		expect(await store().recordDelivery('github', delivery)).toBe(true)
	}, 60_000)

	it('answers the active connection for its tags over one started later and never authorized, deleted a day on', async () => {
		const world = scriptedWorld()
		worlds.set('abandoned', world)
		const created = await t.json('POST', '/v3/connections/scripted', {
			containerTag: 'abandoned',
			metadata: { world: 'abandoned' },
		})
		const active = created.body.id as string
		await syncSettled(t, active, '')
		const { orgId } = (await store().byId(active))!
		// What an OAuth start leaves when the user never comes back from the provider.
		const pending = await store().create(
			{ orgId },
			newConnection({ provider: 'scripted', containerTags: ['abandoned'] }),
		)
		const byTags = await t.json('POST', '/v3/connections/scripted/connection', { containerTags: ['abandoned'] })
		expect(byTags.status).toBe(200)
		expect(byTags.body.id).toBe(active)

		const pruneAt = (days: number) => pruneConnectorRecords(deps(), Date.now() + days * DAY_MS)
		await pruneAt(ABANDONED_AFTER_DAYS / 2)
		expect(await store().byId(pending.id)).not.toBeNull()
		await pruneAt(ABANDONED_AFTER_DAYS + 0.5)
		expect(await store().byId(pending.id)).toBeNull()
		expect((await store().byId(active))?.status).toBe('active')
	}, 60_000)
})
