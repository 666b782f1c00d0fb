import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type EmbedderPlugin, PLUGIN_API_VERSION, type Plugin } from '../../core/index.ts'
import {
	BackgroundLane,
	foregroundCount,
	inBackground,
	inForeground,
	isBackgroundWork,
	laneEmbedder,
	SEARCH_GRACE_MS,
} from '../../core/jobs/priority.ts'
import { openJobQueue } from '../../core/jobs/queue.ts'
import { createLogger } from '../../core/logger.ts'
import { openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { waitFor } from '../../testkit/wait.ts'

/** A promise and the function that settles it. */
function gate() {
	let open = () => {}
	const opened = new Promise<void>((resolve) => {
		open = resolve
	})
	return { open, opened }
}

/** Lets every pending promise callback and I/O callback run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 10))

describe('BackgroundLane', () => {
	it('with a budget of 1, does not start a second background operation while one runs', async () => {
		const lane = new BackgroundLane(1)
		const first = gate()
		const started: string[] = []
		const one = inBackground(() =>
			lane.run(async () => {
				started.push('one')
				await first.opened
			}),
		)
		const two = inBackground(() =>
			lane.run(async () => {
				started.push('two')
			}),
		)
		await settle()
		expect(started).toEqual(['one'])
		expect(lane.queued).toBe(1)
		first.open()
		await Promise.all([one, two])
		expect(started).toEqual(['one', 'two'])
	})

	it('serves work that is not background at once, however full the lane is', async () => {
		const lane = new BackgroundLane(1)
		const held = gate()
		const background = inBackground(() => lane.run(() => held.opened))
		await settle()
		let served = false
		await inForeground(() =>
			lane.run(async () => {
				served = true
			}),
		)
		expect(served).toBe(true)
		held.open()
		await background
	})

	it('admits one background operation at a time while a search runs and for a grace after, then the budget', async () => {
		const lane = new BackgroundLane(3)
		const search = gate()
		const searching = inForeground(() => search.opened)
		expect(foregroundCount()).toBe(1)
		const release = gate()
		let running = 0
		let most = 0
		const work = Array.from({ length: 4 }, () =>
			inBackground(() =>
				lane.run(async () => {
					running++
					most = Math.max(most, running)
					await release.opened
					running--
				}),
			),
		)
		await settle()
		expect(lane.running).toBe(1)
		expect(lane.queued).toBe(3)
		search.open()
		await searching
		const searchEnded = performance.now()
		// A client searching again a moment later finds one background operation, not the budget started in the gap.
		await settle()
		expect(lane.running).toBe(1)
		// Polled: a search still running from an earlier test file of the same process would extend the grace.
		await waitFor(async () => lane.running === 3, 5000)
		expect(performance.now() - searchEnded).toBeGreaterThanOrEqual(SEARCH_GRACE_MS)
		release.open()
		await Promise.all(work)
		expect(most).toBe(3)
	})

	it('lets the event loop turn between the operations of one job while searches come in', async () => {
		const lane = new BackgroundLane(4)
		// A search a moment ago: the grace is on.
		await inForeground(async () => {})
		const ran: string[] = []
		// The embedded database answers on the microtask queue: each operation is synchronous work then a resolved promise.
		const chain = inBackground(async () => {
			for (let i = 0; i < 5; i++) await lane.run(async () => ran.push(`operation ${i}`))
		})
		// A request that arrived meanwhile is read on a later turn of the event loop.
		setImmediate(() => ran.push('request read'))
		await chain
		expect(ran.indexOf('request read')).toBeGreaterThan(0)
		expect(ran.indexOf('request read')).toBeLessThan(ran.length - 1)
	})

	it('lets what an admitted operation runs pass without a second slot', async () => {
		const lane = new BackgroundLane(1)
		const nested = await inBackground(() => lane.run(() => lane.run(async () => 'inner')))
		expect(nested).toBe('inner')
	})

	it('lets background work started inside an admitted operation pass too, without waiting for its own slot', async () => {
		const lane = new BackgroundLane(1)
		const nested = inBackground(() => lane.run(() => inBackground(() => lane.run(async () => 'inner'))))
		const late = Bun.sleep(1000).then(() => 'waited for its own slot')
		expect(await Promise.race([nested, late])).toBe('inner')
	})

	it('keeps a search started by background work (a formation probing neighbours) background', async () => {
		const lane = new BackgroundLane(1)
		const held = gate()
		const holder = inBackground(() => lane.run(() => held.opened))
		await settle()
		let probed = false
		const probe = inBackground(() =>
			inForeground(() =>
				lane.run(async () => {
					probed = true
				}),
			),
		)
		await settle()
		expect(probed).toBe(false)
		expect(foregroundCount()).toBe(0)
		held.open()
		await Promise.all([holder, probe])
		expect(probed).toBe(true)
	})

	it('gates an embedder for background batches only', async () => {
		const calls: string[] = []
		const plugin = {
			kind: 'embedder',
			name: 'recording',
			space: { id: 'test', dimensions: 1 },
			embed: async (texts: string[]) => {
				calls.push(texts[0]!)
				return texts.map(() => new Float32Array([1]))
			},
		} as unknown as EmbedderPlugin
		const lane = new BackgroundLane(1)
		const held = gate()
		const holder = inBackground(() => lane.run(() => held.opened))
		await settle()
		const embedder = laneEmbedder(plugin, lane)
		expect(embedder.space.id).toBe('test')
		const document = inBackground(() => embedder.embed(['document'], 'document'))
		await embedder.embed(['query'], 'query')
		await settle()
		expect(calls).toEqual(['query'])
		held.open()
		await Promise.all([holder, document])
		expect(calls).toEqual(['query', 'document'])
	})
})

describe('embedded store under background statements', () => {
	it('runs a search statement ahead of the background statements queued before it', async () => {
		const driver = await openPglite('memory://')
		try {
			const finished: string[] = []
			const background = Array.from({ length: 20 }, (_, i) =>
				inBackground(async () => {
					await driver.db.query('SELECT pg_sleep(0.01)')
					finished.push(`background ${i}`)
				}),
			)
			await settle()
			await inForeground(async () => {
				await driver.db.query('SELECT 1')
				finished.push('search')
			})
			await Promise.all(background)
			// PGlite runs one statement at a time, in the order given: the search waits behind the few the lane let in.
			expect(finished.indexOf('search')).toBeLessThan(8)
		} finally {
			await driver.close()
		}
	})
})

describe('job queue handlers', () => {
	it('run as background work', async () => {
		const driver = await openPglite('memory://')
		const queue = await openJobQueue(driver.jobDatabase(), createLogger('error'), { heartbeat: false })
		try {
			await queue.define('priority-test', { retryLimit: 0, retryDelaySeconds: 1, expireInSeconds: 60 })
			const seen = gate()
			const background: boolean[] = []
			await queue.work('priority-test', { concurrency: 1 }, async () => {
				background.push(isBackgroundWork())
				seen.open()
			})
			await queue.send('priority-test', {})
			await seen.opened
			expect(background).toEqual([true])
		} finally {
			await queue.stop()
			await driver.close()
		}
	})
})

describe('search requests', () => {
	let app: TestService
	const seen: { purpose: string; foreground: number; background: boolean }[] = []

	beforeAll(async () => {
		const recorder: Plugin = {
			apiVersion: PLUGIN_API_VERSION,
			kind: 'reranker',
			name: 'foreground-recorder',
			async init() {},
			async rerank(_query: string, candidates: string[]) {
				seen.push({ purpose: 'rerank', foreground: foregroundCount(), background: isBackgroundWork() })
				return candidates.map(() => 0.5)
			},
		} as unknown as Plugin
		app = await startTestService('pglite', { extractor: null, plugins: [recorder] })
	})

	afterAll(async () => {
		await app?.stop()
	})

	it('count as foreground work on v3 and v4, so background work yields to them', async () => {
		const { body } = await app.json('POST', '/v3/documents', {
			content: 'Caroline adopted a puppy named Max.',
			containerTag: 'pets',
		})
		await app.waitForStatus(body.id)
		seen.length = 0
		expect((await app.json('POST', '/v3/search', { q: 'puppy', rerank: true })).status).toBe(200)
		expect(
			(await app.json('POST', '/v4/search', { q: 'puppy', containerTag: 'pets', searchMode: 'hybrid', rerank: true }))
				.status,
		).toBe(200)
		expect(seen.length).toBeGreaterThanOrEqual(2)
		for (const call of seen) expect(call).toMatchObject({ foreground: 1, background: false })
		expect(foregroundCount()).toBe(0)
	})
})
