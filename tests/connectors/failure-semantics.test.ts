import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { runSync } from '../../core/connectors/sync-runner.ts'
import { syncSettled } from '../../testkit/connections.ts'
import { putItem, type ScriptedWorld, scriptedConnector, scriptedWorld } from '../../testkit/scripted-connector.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const worlds = new Map<string, ScriptedWorld>()
const withRead = scriptedConnector('scripted', worlds, { readItem: true })
const listOnly = scriptedConnector('scripted-list', worlds, { readItem: false })

let t: TestService
const store = () => t.service.services.connectorDeps.storage.connections

/** A connection of `provider` on a fresh world holding `items`; its first sync has settled. */
async function connect(provider: string, name: string, items: Record<string, string>) {
	const world = scriptedWorld()
	for (const [id, content] of Object.entries(items)) putItem(world, id, content)
	worlds.set(name, world)
	const since = new Date().toISOString()
	const created = await t.json('POST', `/v3/connections/${provider}`, { containerTag: name, metadata: { world: name } })
	expect(created.status).toBe(200)
	const id = created.body.id as string
	const connection = await syncSettled(t, id, since)
	return { world, id, connection }
}

/** Syncs the connection again and answers it with its last run. */
async function syncAgain(provider: string, id: string, tag: string) {
	const since = new Date().toISOString()
	const imported = await t.request('POST', `/v3/connections/${provider}/import`, { body: { containerTags: [tag] } })
	expect(imported.status).toBe(202)
	return syncSettled(t, id, since)
}

const held = async (id: string) => (await store().items(id)).map((item) => item.externalId).sort()

beforeAll(async () => {
	t = await startTestService('pglite', {
		plugins: [withRead, listOnly],
		extractor: null,
		env: {
			MEMORY_CONNECTOR_RETRY_SECONDS: '0',
			MEMORY_CONNECTOR_ITEM_ATTEMPTS: '3',
			MEMORY_CONNECTOR_LEASE_SECONDS: '2',
		},
	})
}, 120_000)
afterAll(async () => {
	await t?.stop()
}, 60_000)

describe('connector runtime: a failed item is read again', () => {
	it('reads a failed item again on the next run through readItem, although the cursor moved past it', async () => {
		const world = scriptedWorld()
		putItem(world, 'a', 'Alpha')
		putItem(world, 'b', 'Bravo')
		putItem(world, 'c', 'Charlie')
		world.failing.set('b', 'transient')
		worlds.set('retry-read', world)
		const since = new Date().toISOString()
		const created = await t.json('POST', '/v3/connections/scripted', {
			containerTag: 'retry-read',
			metadata: { world: 'retry-read' },
		})
		const id = created.body.id as string
		const first = await syncSettled(t, id, since)
		expect(first.lastSyncRun).toMatchObject({ status: 'completed', added: 2, failed: 1 })
		expect(await held(id)).toEqual(['a', 'c'])
		world.failing.delete('b')
		world.reads.length = 0
		const second = await syncAgain('scripted', id, 'retry-read')
		expect(second.lastSyncRun).toMatchObject({ status: 'completed', added: 1, failed: 0 })
		expect(await held(id)).toEqual(['a', 'b', 'c'])
		// Only the failed item was read: the cursor had moved past the others.
		expect(world.reads).toEqual(['b'])
		expect(await store().failedItems(id)).toEqual([])
	}, 60_000)

	it('lists everything again when the connector cannot read one item, and imports the failed one', async () => {
		const { world, id, connection } = await connect('scripted-list', 'retry-list', { a: 'Alpha', b: 'Bravo' })
		expect(connection.lastSyncRun).toMatchObject({ added: 2 })
		putItem(world, 'c', 'Charlie')
		world.failing.set('c', 'transient')
		expect((await syncAgain('scripted-list', id, 'retry-list')).lastSyncRun).toMatchObject({ failed: 1 })
		world.failing.delete('c')
		const third = await syncAgain('scripted-list', id, 'retry-list')
		expect(third.lastSyncRun).toMatchObject({ status: 'completed', added: 1, skipped: 2 })
		expect(third.lastSyncRun.notes[0]).toContain('listed again in full')
		expect(await held(id)).toEqual(['a', 'b', 'c'])
	}, 60_000)

	it('gives an item up after the bounded attempts, visible as permanent on the run', async () => {
		const { world, id } = await connect('scripted', 'give-up', { a: 'Alpha' })
		putItem(world, 'bad', 'Broken')
		world.failing.set('bad', 'transient')
		for (let i = 0; i < 3; i++) await syncAgain('scripted', id, 'give-up')
		const [item] = await store().failedItems(id)
		expect(item).toMatchObject({ externalId: 'bad', attempts: 3, permanent: true, nextAttemptAt: null })
		const runs = (await t.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns
		const failures = (await t.json('GET', `/v3/connections/${id}/sync-runs/${runs[0].id}/failures`)).body.failures
		expect(failures).toMatchObject([{ externalId: 'bad', permanent: true }])
		expect(failures[0].error).toContain('given up after 3 attempts')
		world.reads.length = 0
		await syncAgain('scripted', id, 'give-up')
		expect(world.reads).not.toContain('bad')
	}, 60_000)

	it('does not retry an item the connector calls permanent', async () => {
		const { world, id } = await connect('scripted', 'permanent', { a: 'Alpha' })
		putItem(world, 'odd', 'Unreadable')
		world.failing.set('odd', 'permanent')
		await syncAgain('scripted', id, 'permanent')
		expect(await store().failedItems(id)).toMatchObject([{ externalId: 'odd', attempts: 1, permanent: true }])
		world.reads.length = 0
		await syncAgain('scripted', id, 'permanent')
		expect(world.reads).toEqual([])
	}, 60_000)
})

describe('connector runtime: reconciliation never deletes on an incomplete picture', () => {
	it('deletes nothing on a listing not declared complete, and says why', async () => {
		const { world, id } = await connect('scripted', 'incomplete', { a: 'Alpha', b: 'Bravo' })
		world.items.delete('b')
		world.complete = false
		// The scripted connector lists in full from a null cursor.
		await store().update(id, { cursor: null })
		const run = (await syncAgain('scripted', id, 'incomplete')).lastSyncRun
		expect(run.deleted).toBe(0)
		expect(run.notes).toEqual(['the listing was not complete: nothing deleted'])
		expect(await held(id)).toEqual(['a', 'b'])
		world.complete = true
		await store().update(id, { cursor: null })
		expect((await syncAgain('scripted', id, 'incomplete')).lastSyncRun.deleted).toBe(1)
		expect(await held(id)).toEqual(['a'])
	}, 60_000)

	it("holds back a refused scope's deletions only", async () => {
		const world = scriptedWorld()
		world.scoped = true
		for (const id of ['one:a', 'one:b', 'two:a', 'two:b']) putItem(world, id, id)
		worlds.set('scopes', world)
		const since = new Date().toISOString()
		const created = await t.json('POST', '/v3/connections/scripted', {
			containerTag: 'scopes',
			metadata: { world: 'scopes' },
		})
		const id = created.body.id as string
		await syncSettled(t, id, since)
		expect(await held(id)).toEqual(['one:a', 'one:b', 'two:a', 'two:b'])
		world.items.delete('one:b')
		world.items.delete('two:b')
		world.refusedScopes.add('two')
		// The scripted connector lists in full from a null cursor: reset it.
		await store().update(id, { cursor: null })
		const run = (await syncAgain('scripted', id, 'scopes')).lastSyncRun
		expect(run.deleted).toBe(1)
		expect(run.notes).toEqual(['the listing of two failed (two answered 403): nothing deleted'])
		expect(await held(id)).toEqual(['one:a', 'two:a', 'two:b'])
	}, 60_000)

	it('deletes nothing when a listing lacks more than half of a scope of 20 or more, but deletes a smaller loss', async () => {
		const items = Object.fromEntries(
			Array.from({ length: 24 }, (_, i) => [`n${String(i).padStart(2, '0')}`, `Note ${i}`]),
		)
		const { world, id } = await connect('scripted', 'share', items)
		expect(await held(id)).toHaveLength(24)
		for (let i = 0; i < 13; i++) world.items.delete(`n${String(i).padStart(2, '0')}`)
		await store().update(id, { cursor: null })
		const refused = (await syncAgain('scripted', id, 'share')).lastSyncRun
		expect(refused.deleted).toBe(0)
		expect(refused.notes[0]).toBe(
			'the listing lacks 13 of 24 imported items, more than the 50 % one sync may delete: nothing deleted',
		)
		for (let i = 0; i < 13; i++) putItem(world, `n${String(i).padStart(2, '0')}`, `Note ${i}`)
		world.items.delete('n20')
		await store().update(id, { cursor: null })
		expect((await syncAgain('scripted', id, 'share')).lastSyncRun.deleted).toBe(1)
		expect(await held(id)).toHaveLength(23)
	}, 60_000)

	it('deletes nothing when the listing saw an error, but does not let a failed item hold deletions back', async () => {
		const { world, id } = await connect('scripted', 'failed-listing', { a: 'Alpha', b: 'Bravo', c: 'Charlie' })
		world.items.delete('c')
		world.listingError = 'page 2 of the listing answered 500'
		await store().update(id, { cursor: null })
		const run = (await syncAgain('scripted', id, 'failed-listing')).lastSyncRun
		expect(run).toMatchObject({ deleted: 0, failed: 1 })
		expect(run.notes).toEqual(['the listing saw 1 error(s): nothing deleted'])
		expect(await held(id)).toEqual(['a', 'b', 'c'])
		world.listingError = null
		putItem(world, 'a', 'Alpha 2')
		world.failing.set('a', 'transient')
		await store().update(id, { cursor: null })
		const next = (await syncAgain('scripted', id, 'failed-listing')).lastSyncRun
		expect(next).toMatchObject({ deleted: 1, failed: 1 })
		expect(await held(id)).toEqual(['a', 'b'])
	}, 60_000)
})

describe('connector runtime: limits and refusals', () => {
	it('ends a run on a long rate limit as rate_limited with retryAt, and runs again at the reset', async () => {
		const { world, id } = await connect('scripted', 'limited', { a: 'Alpha' })
		putItem(world, 'b', 'Bravo')
		world.rateLimitedUntil = Date.now() + 2_000
		const since = new Date().toISOString()
		await t.request('POST', '/v3/connections/scripted/import', { body: { containerTags: ['limited'] } })
		const limited = await syncSettled(t, id, since)
		expect(limited.lastSyncRun).toMatchObject({ status: 'failed', errorCode: 'rate_limited' })
		expect(Date.parse(limited.lastSyncRun.retryAt)).toBe(world.rateLimitedUntil)
		expect(limited.status).toBe('active')
		// Nobody asks again: the runtime scheduled the next run at the reset.
		const resumed = await syncSettled(t, id, new Date(world.rateLimitedUntil).toISOString())
		expect(resumed.lastSyncRun).toMatchObject({ status: 'completed', added: 1 })
		expect(await held(id)).toEqual(['a', 'b'])
	}, 60_000)

	it('does not file a 403 that ends a sync as rate_limited', async () => {
		const { world, id } = await connect('scripted', 'forbidden', { a: 'Alpha' })
		world.throwOnce = Object.assign(new Error('Resource protected by organization SAML enforcement'), { status: 403 })
		const run = (await syncAgain('scripted', id, 'forbidden')).lastSyncRun
		expect(run).toMatchObject({ status: 'failed', errorCode: 'internal' })
	}, 60_000)

	it('expires a connection whose grant lacks a permission, naming it', async () => {
		const { world, id } = await connect('scripted', 'scope', { a: 'Alpha' })
		world.missingScope = 'https://www.googleapis.com/auth/drive.readonly'
		const connection = await syncAgain('scripted', id, 'scope')
		expect(connection.lastSyncRun).toMatchObject({ status: 'failed', errorCode: 'auth_expired' })
		expect(connection.status).toBe('expired')
		expect(connection.error).toContain('drive.readonly')
	}, 60_000)

	it('never runs two syncs of one connection at once', async () => {
		const { world, id } = await connect('scripted', 'single', { a: 'Alpha' })
		for (let i = 0; i < 6; i++) putItem(world, `slow${i}`, `Slow ${i}`)
		world.readMs = 150
		world.maxActive = 0
		const deps = t.service.services.connectorDeps
		const attempt = { lastAttempt: false }
		// As pg-boss does after an expired job: a retry starts while the first attempt still runs.
		const first = runSync(deps, { connectionId: id, trigger: 'manual' }, attempt)
		await Bun.sleep(100)
		const second = runSync(deps, { connectionId: id, trigger: 'manual' }, attempt)
		await Promise.all([first, second])
		expect(world.maxActive).toBe(1)
		expect(await held(id)).toHaveLength(7)
	}, 60_000)
})

describe('connector runtime: a run stops with its job', () => {
	let short: TestService
	const slowWorlds = new Map<string, ScriptedWorld>()
	beforeAll(async () => {
		short = await startTestService('pglite', {
			plugins: [scriptedConnector('scripted', slowWorlds, { readItem: true })],
			extractor: null,
			env: { MEMORY_CONNECTOR_RUN_SECONDS: '1', MEMORY_CONNECTOR_LEASE_SECONDS: '2' },
		})
	}, 120_000)
	afterAll(async () => {
		await short?.stop()
	}, 60_000)

	it('checkpoints at its time budget, ends interrupted, and the next run resumes without reading again', async () => {
		const world = scriptedWorld()
		for (let i = 0; i < 12; i++) putItem(world, `p${String(i).padStart(2, '0')}`, `Page ${i}`)
		world.readMs = 250
		slowWorlds.set('budget', world)
		const since = new Date().toISOString()
		const created = await short.json('POST', '/v3/connections/scripted', {
			containerTag: 'budget',
			metadata: { world: 'budget' },
		})
		const id = created.body.id as string
		await syncSettled(short, id, since)
		let runs: { status: string; error: string | null }[] = []
		for (let i = 0; i < 400; i++) {
			runs = (await short.json('GET', `/v3/connections/${id}/sync-runs`)).body.syncRuns
			if (runs[0]!.status === 'completed') break
			await Bun.sleep(50)
		}
		const [last, ...earlier] = runs
		expect(last!.status).toBe('completed')
		expect(earlier.length).toBeGreaterThan(0)
		for (const run of earlier) {
			expect(run.status).toBe('interrupted')
			expect(run.error).toContain('time budget')
		}
		const items = await short.service.services.connectorDeps.storage.connections.items(id)
		expect(items).toHaveLength(12)
		// Every item was read once: each run resumed from the last checkpoint.
		expect(world.reads).toHaveLength(12)
		expect(new Set(world.reads).size).toBe(12)
	}, 90_000)
})
