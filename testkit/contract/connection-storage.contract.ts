import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { newId, type StoragePlugin } from '../../core/index.ts'
import { newConnection as connection, context, newDocument, type OpenedStorage } from './storage.contract.ts'

const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString()

/** Connections, imported items, sync runs and webhook subscriptions: every storage plugin must pass this suite. */
export function connectionStorageContract(label: string, open: () => Promise<OpenedStorage>): void {
	describe(label, () => {
		let opened: OpenedStorage
		let storage: StoragePlugin
		beforeAll(async () => {
			opened = await open()
			storage = opened.storage
			await storage.init?.(context())
		})
		afterAll(async () => {
			await storage?.close?.()
			await opened?.cleanup()
		})
		const newScope = async () => ({ orgId: (await storage.orgs.create(`org-${crypto.randomUUID()}`)).id })

		it('creates, reads, lists and updates connections within their organization only', async () => {
			const [a, b] = [await newScope(), await newScope()]
			const created = await storage.connections.create(
				a,
				connection({ containerTags: ['t1', 't2'], documentLimit: 50, metadata: { team: 'x', n: 1 } }),
			)
			expect(created).toMatchObject({
				orgId: a.orgId,
				provider: 'github',
				containerTags: ['t1', 't2'],
				documentLimit: 50,
				metadata: { team: 'x', n: 1 },
				status: 'pending',
				cursor: null,
				settings: {},
			})
			await storage.connections.create(a, connection({ provider: 'notion', containerTags: ['t3'] }))
			expect(await storage.connections.get(b, created.id)).toBeNull()
			expect(await storage.connections.list(b, {})).toEqual([])
			expect((await storage.connections.list(a, {})).map((c) => c.provider).sort()).toEqual(['github', 'notion'])
			expect((await storage.connections.list(a, { provider: 'github' })).map((c) => c.id)).toEqual([created.id])
			expect((await storage.connections.list(a, { containerTags: ['t2'] })).map((c) => c.id)).toEqual([created.id])
			expect(await storage.connections.list(a, { containerTags: ['nope'] })).toEqual([])

			await storage.connections.update(created.id, {
				status: 'active',
				secrets: 'v1:sealed',
				settings: { repositories: ['a/b'] },
				cursor: { 'a/b': 'sha1' },
			})
			expect(await storage.connections.get(a, created.id)).toMatchObject({
				status: 'active',
				secrets: 'v1:sealed',
				settings: { repositories: ['a/b'] },
				cursor: { 'a/b': 'sha1' },
			})
		})

		it('rewrites secrets under a lock: concurrent changes take turns, each seeing the one before', async () => {
			const created = await storage.connections.create(await newScope(), connection({ secrets: '0' }))
			const seen: string[] = []
			const bump = () =>
				storage.connections.updateSecretsLocked(created.id, async (current) => {
					seen.push(current!)
					await Bun.sleep(30)
					return String(Number(current) + 1)
				})
			expect((await Promise.all([bump(), bump(), bump()])).sort()).toEqual(['1', '2', '3'])
			expect(seen.sort()).toEqual(['0', '1', '2'])
			expect((await storage.connections.byId(created.id))?.secrets).toBe('3')
			expect(await storage.connections.updateSecretsLocked(created.id, async () => null)).toBe('3')
			const refused = storage.connections.updateSecretsLocked(created.id, async () => {
				throw new Error('refused')
			})
			await expect(refused).rejects.toThrow('refused')
			expect((await storage.connections.byId(created.id))?.secrets).toBe('3')
			expect(await storage.connections.updateSecretsLocked(newId(), async () => 'x')).toBeUndefined()
		})

		it('hands out a pending authorization once, only to its organization and before it lapses', async () => {
			const [a, b] = [await newScope(), await newScope()]
			const c = await storage.connections.create(
				a,
				connection({ auth: { nonce: 'n1', verifier: 'sealed-verifier', expiresAt: inOneHour() } }),
			)
			expect(await storage.connections.consumeAuth(b.orgId, c.id, 'n1')).toBeNull()
			expect(await storage.connections.consumeAuth(a.orgId, c.id, 'wrong')).toBeNull()
			expect(await storage.connections.consumeAuth(a.orgId, c.id, 'n1')).toEqual({ verifier: 'sealed-verifier' })
			expect(await storage.connections.consumeAuth(a.orgId, c.id, 'n1')).toBeNull()
			await storage.connections.setAuth(c.id, {
				nonce: 'n2',
				verifier: null,
				expiresAt: new Date(Date.now() - 1000).toISOString(),
			})
			expect(await storage.connections.consumeAuth(a.orgId, c.id, 'n2')).toBeNull()
		})

		it('maps external ids to documents, by prefix, and forgets an item whose document is deleted', async () => {
			const scope = await newScope()
			const c = await storage.connections.create(scope, connection())
			const doc = async (customId: string) =>
				(await storage.documents.upsert(scope, newDocument({ customId, connectionId: c.id }))).document.id
			const [d1, d2, d3] = [await doc('1'), await doc('2'), await doc('3')]
			await storage.connections.putItem(c.id, { externalId: 'o/r:a.md', documentId: d1, version: 'v1' })
			await storage.connections.putItem(c.id, { externalId: 'o/r:b.md', documentId: d2, version: 'v1' })
			await storage.connections.putItem(c.id, { externalId: 'o/s:c.md', documentId: d3, version: null })
			await storage.connections.putItem(c.id, { externalId: 'o/r:a.md', documentId: d1, version: 'v2' })
			expect(await storage.connections.item(c.id, 'o/r:a.md')).toEqual({
				externalId: 'o/r:a.md',
				documentId: d1,
				version: 'v2',
			})
			expect(await storage.connections.countItems(c.id)).toBe(3)
			expect((await storage.connections.items(c.id, 'o/r:')).map((i) => i.externalId)).toEqual(['o/r:a.md', 'o/r:b.md'])
			await storage.documents.delete(scope, d2)
			expect(await storage.connections.item(c.id, 'o/r:b.md')).toBeNull()
			await storage.connections.removeItem(c.id, 'o/s:c.md')
			expect((await storage.connections.items(c.id)).map((i) => i.externalId)).toEqual(['o/r:a.md'])
		})

		it('deletes a connection with its items and runs, keeping its documents detached', async () => {
			const [scope, other] = [await newScope(), await newScope()]
			const c = await storage.connections.create(scope, connection())
			const { document } = await storage.documents.upsert(scope, newDocument({ customId: 'x', connectionId: c.id }))
			await storage.connections.putItem(c.id, { externalId: 'x', documentId: document.id, version: null })
			await storage.connections.startRun(c.id, 'manual')
			expect(await storage.connections.delete(other, c.id)).toBe(false)
			expect(await storage.connections.delete(scope, c.id)).toBe(true)
			expect(await storage.connections.get(scope, c.id)).toBeNull()
			expect(await storage.connections.items(c.id)).toEqual([])
			expect((await storage.documents.get(scope, document.id))?.connectionId).toBeNull()
		})

		it('records sync runs with counts and failures, newest first, and interrupts runs left running', async () => {
			const [scope, other] = [await newScope(), await newScope()]
			const c = await storage.connections.create(scope, connection())
			const first = await storage.connections.startRun(c.id, 'schedule')
			expect(first).toMatchObject({ trigger: 'schedule', status: 'running', added: 0, completedAt: null })
			await storage.connections.addFailure(first.id, 'o/r:big.bin', 'too large')
			await storage.connections.updateRun(first.id, {
				status: 'completed',
				counts: { added: 3, updated: 1, deleted: 2, skipped: 4, failed: 1 },
				finished: true,
			})
			const second = await storage.connections.startRun(c.id, 'webhook')
			expect(await storage.connections.interruptRuns(c.id)).toBe(1)
			const runs = await storage.connections.runs(scope, c.id, 10)
			expect(runs.map((r) => [r.id, r.status])).toEqual([
				[second.id, 'interrupted'],
				[first.id, 'completed'],
			])
			expect(runs[1]).toMatchObject({ added: 3, updated: 1, deleted: 2, skipped: 4, failed: 1 })
			expect(runs[1]!.completedAt).not.toBeNull()
			expect((await storage.connections.lastRuns([c.id])).get(c.id)?.id).toBe(second.id)
			const failures = await storage.connections.failures(scope, c.id, first.id)
			expect(failures?.map((f) => [f.externalId, f.error])).toEqual([['o/r:big.bin', 'too large']])
			expect(await storage.connections.runs(other, c.id, 10)).toEqual([])
			expect(await storage.connections.failures(other, c.id, first.id)).toBeNull()
		})

		it('keeps failed items per connection until removed, and notes, retry time and permanence on runs', async () => {
			const scope = await newScope()
			const created = await storage.connections.create(scope, connection({ status: 'active' }))
			const other = await storage.connections.create(scope, connection({ status: 'active' }))
			const next = inOneHour()
			await storage.connections.putFailedItem(created.id, {
				externalId: 'b',
				attempts: 1,
				permanent: false,
				nextAttemptAt: next,
				error: 'timeout',
			})
			await storage.connections.putFailedItem(created.id, {
				externalId: 'a',
				attempts: 5,
				permanent: true,
				nextAttemptAt: null,
				error: 'gone wrong',
			})
			await storage.connections.putFailedItem(created.id, {
				externalId: 'b',
				attempts: 2,
				permanent: false,
				nextAttemptAt: next,
				error: 'still a timeout',
			})
			expect(await storage.connections.failedItems(created.id)).toEqual([
				{ externalId: 'b', attempts: 2, permanent: false, nextAttemptAt: next, error: 'still a timeout' },
				{ externalId: 'a', attempts: 5, permanent: true, nextAttemptAt: null, error: 'gone wrong' },
			])
			expect(await storage.connections.failedItems(other.id)).toEqual([])
			expect(await storage.connections.failedItem(created.id, 'a')).toMatchObject({ permanent: true })
			await storage.connections.removeFailedItem(created.id, 'a')
			expect(await storage.connections.failedItem(created.id, 'a')).toBeNull()

			const run = await storage.connections.startRun(created.id, 'manual')
			expect(run).toMatchObject({ notes: [], retryAt: null })
			await storage.connections.updateRun(run.id, { notes: ['the listing was not complete'], retryAt: next })
			await storage.connections.addFailure(run.id, 'b', 'given up', true)
			expect((await storage.connections.runs(scope, created.id, 1))[0]).toMatchObject({
				notes: ['the listing was not complete'],
				retryAt: next,
			})
			expect(await storage.connections.failures(scope, created.id, run.id)).toMatchObject([
				{ externalId: 'b', permanent: true },
			])
		})

		it('leases a connection to one sync run at a time until the lease lapses or is released', async () => {
			const scope = await newScope()
			const created = await storage.connections.create(scope, connection({ status: 'active' }))
			expect(await storage.connections.takeSyncLease(created.id, 'run-1', inOneHour())).toBe(true)
			expect(await storage.connections.takeSyncLease(created.id, 'run-2', inOneHour())).toBe(false)
			expect(await storage.connections.takeSyncLease(created.id, 'run-1', inOneHour())).toBe(true)
			await storage.connections.releaseSyncLease(created.id, 'run-2')
			expect(await storage.connections.takeSyncLease(created.id, 'run-2', inOneHour())).toBe(false)
			await storage.connections.releaseSyncLease(created.id, 'run-1')
			const lapsing = new Date(Date.now() + 50).toISOString()
			expect(await storage.connections.takeSyncLease(created.id, 'run-2', lapsing)).toBe(true)
			await Bun.sleep(100)
			expect(await storage.connections.takeSyncLease(created.id, 'run-3', inOneHour())).toBe(true)
		})

		it('shares turns across processes: one holder at a time, the next no sooner than the holder said', async () => {
			const key = `web-crawler:site-${crypto.randomUUID()}`
			expect(await storage.connections.takeTurn(key, 'crawl-a', 60_000)).toBe(0)
			const waiting = await storage.connections.takeTurn(key, 'crawl-b', 60_000)
			expect(waiting).toBeGreaterThan(50_000)
			// Only the holder ends its turn.
			await storage.connections.endTurn(key, 'crawl-b', 0)
			expect(await storage.connections.takeTurn(key, 'crawl-b', 60_000)).toBeGreaterThan(50_000)
			await storage.connections.endTurn(key, 'crawl-a', 300)
			const delayed = await storage.connections.takeTurn(key, 'crawl-b', 60_000)
			expect(delayed).toBeGreaterThan(0)
			expect(delayed).toBeLessThanOrEqual(300)
			await Bun.sleep(delayed + 20)
			expect(await storage.connections.takeTurn(key, 'crawl-b', 60_000)).toBe(0)
			// A holder that dies lets its turn lapse.
			await storage.connections.endTurn(key, 'crawl-b', 0)
			expect(await storage.connections.takeTurn(key, 'crawl-c', 50)).toBe(0)
			await Bun.sleep(80)
			expect(await storage.connections.takeTurn(key, 'crawl-d', 60_000)).toBe(0)
		})

		it('finds the active connections of one provider account, in every organization', async () => {
			const [a, b] = [await newScope(), await newScope()]
			const drive = await storage.connections.create(a, connection({ status: 'active', accountId: 'acct-1' }))
			const gmail = await storage.connections.create(b, connection({ status: 'active', accountId: 'acct-1' }))
			await storage.connections.create(a, connection({ status: 'active', accountId: 'acct-2' }))
			const expired = await storage.connections.create(a, connection({ status: 'active', accountId: 'acct-1' }))
			await storage.connections.update(expired.id, { status: 'expired' })
			expect((await storage.connections.connectionsOfAccount('acct-1')).map((c) => c.id).sort()).toEqual(
				[drive.id, gmail.id].sort(),
			)
			await storage.connections.update(gmail.id, { accountId: 'acct-3' })
			expect((await storage.connections.byId(gmail.id))?.accountId).toBe('acct-3')
		})

		it('keeps webhook subscriptions by route and expiry, and refuses a replayed delivery', async () => {
			const scope = await newScope()
			const c = await storage.connections.create(scope, connection())
			const soon = new Date(Date.now() + 60_000).toISOString()
			await storage.connections.addSubscriptions(c, [
				{ externalId: 'h1', routeKey: 'r1', secret: 'sealed', expiresAt: null, data: { repository: 'o/r' } },
				{ externalId: 'h2', routeKey: 'r2', secret: 'sealed', expiresAt: soon, data: {} },
			])
			const [routed] = await storage.connections.subscriptionsByRoutes('github', ['r1'])
			expect(routed).toMatchObject({
				connectionId: c.id,
				orgId: scope.orgId,
				externalId: 'h1',
				data: { repository: 'o/r' },
			})
			const routes = await storage.connections.subscriptionsByRoutes('github', ['r2', 'unknown', 'r1', 'r1'])
			const mine = routes.filter((s) => s.connectionId === c.id)
			expect(mine.map((s) => s.externalId).sort()).toEqual(['h1', 'h2'])
			const otherProvider = await storage.connections.subscriptionsByRoutes('notion', ['r1', 'r2'])
			expect(otherProvider.filter((s) => s.connectionId === c.id)).toEqual([])
			expect(await storage.connections.subscriptionsByRoutes('github', [])).toEqual([])
			const expiring = await storage.connections.expiring(new Date(Date.now() + 120_000).toISOString())
			expect(expiring.filter((s) => s.connectionId === c.id).map((s) => s.externalId)).toEqual(['h2'])
			await storage.connections.setSubscriptionExpiry(expiring.find((s) => s.externalId === 'h2')!.id, inOneHour())
			expect(
				(await storage.connections.expiring(new Date(Date.now() + 120_000).toISOString())).filter(
					(s) => s.connectionId === c.id,
				),
			).toEqual([])
			await storage.connections.removeSubscription(routed!.id)
			expect((await storage.connections.subscriptions(c.id)).map((s) => s.externalId)).toEqual(['h2'])
			const delivery = crypto.randomUUID()
			expect(await storage.connections.recordDelivery('github', delivery)).toBe(true)
			expect(await storage.connections.recordDelivery('github', delivery)).toBe(false)
			expect(await storage.connections.recordDelivery('notion', delivery)).toBe(true)
		})

		it('prunes delivery ids, idle turns, abandoned connections and finished runs past the newest kept, and nothing newer', async () => {
			const scope = await newScope()
			const c = await storage.connections.create(scope, connection({ status: 'active' }))
			const abandoned = await storage.connections.create(scope, connection())
			const failed = await storage.connections.create(scope, connection({ status: 'error' }))
			const [oldDelivery, newDelivery] = [crypto.randomUUID(), crypto.randomUUID()]
			const [idleTurn, heldTurn, newTurn] = [1, 2, 3].map((n) => `web-crawler:prune-${n}-${crypto.randomUUID()}`)
			expect(await storage.connections.recordDelivery('github', oldDelivery)).toBe(true)
			expect(await storage.connections.takeTurn(idleTurn!, 'crawl-a', 60_000)).toBe(0)
			await storage.connections.endTurn(idleTurn!, 'crawl-a', 0)
			expect(await storage.connections.takeTurn(heldTurn!, 'crawl-a', 600_000)).toBe(0)
			const runs = []
			for (let i = 0; i < 4; i++) {
				const run = await storage.connections.startRun(c.id, 'schedule')
				await storage.connections.addFailure(run.id, `item-${i}`, 'failed')
				if (i < 3) await storage.connections.updateRun(run.id, { status: 'completed', finished: true })
				runs.push(run)
				await Bun.sleep(5)
			}
			await Bun.sleep(30)
			const cutoff = new Date().toISOString()
			await Bun.sleep(30)
			expect(await storage.connections.recordDelivery('github', newDelivery)).toBe(true)
			expect(await storage.connections.takeTurn(newTurn!, 'crawl-a', 60_000)).toBe(0)
			await storage.connections.endTurn(newTurn!, 'crawl-a', 0)
			const started = await storage.connections.create(scope, connection())

			const pruned = await storage.connections.prune({
				deliveriesBefore: cutoff,
				turnsBefore: cutoff,
				pendingBefore: cutoff,
				runsKept: 1,
			})
			expect(pruned.deliveries).toBeGreaterThanOrEqual(1)
			expect(pruned.turns).toBeGreaterThanOrEqual(1)
			expect(pruned.runs).toBeGreaterThanOrEqual(2)
			expect(pruned.abandoned).toBeGreaterThanOrEqual(1)
			// A pending connection made before the cutoff was never authorized: it goes. Others stay, failed ones too.
			expect(await storage.connections.byId(abandoned.id)).toBeNull()
			for (const kept of [c, failed, started]) expect(await storage.connections.byId(kept.id)).not.toBeNull()
			// A forgotten delivery id is taken again; the newer one is still a replay.
			expect(await storage.connections.recordDelivery('github', oldDelivery)).toBe(true)
			expect(await storage.connections.recordDelivery('github', newDelivery)).toBe(false)
			// The idle turn is gone with its end time, so a long gap no longer holds the next one back; the others stay.
			expect(await storage.connections.takeTurn(idleTurn!, 'crawl-b', 60_000, 3_600_000)).toBe(0)
			expect(await storage.connections.takeTurn(newTurn!, 'crawl-b', 60_000, 3_600_000)).toBeGreaterThan(0)
			expect(await storage.connections.takeTurn(heldTurn!, 'crawl-b', 60_000)).toBeGreaterThan(0)
			// The newest run and the one still running are kept, with their failures; the older finished ones go.
			expect((await storage.connections.runs(scope, c.id, 10)).map((run) => run.id)).toEqual([runs[3]!.id, runs[2]!.id])
			expect(await storage.connections.failures(scope, c.id, runs[0]!.id)).toBeNull()
			expect((await storage.connections.failures(scope, c.id, runs[2]!.id))?.length).toBe(1)
		})
	})
}
