import { afterAll, beforeAll, expect, it } from 'bun:test'
import { granola } from '../../connectors/granola/index.ts'
import { webCrawler } from '../../connectors/web-crawler/index.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startGranolaEmulator } from '../../testkit/emulators/granola.ts'
import { htmlPage, startWebsite } from '../../testkit/emulators/website.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

describeEachDriver('v5 connectors', (driver) => {
	let t: TestService
	let restricted: string
	const emulator = startGranolaEmulator()
	const site = startWebsite()

	/** The connector once its latest run finished. */
	async function settled(namespace: string, id: string) {
		const deadline = Date.now() + 30_000
		for (;;) {
			const { body } = await t.json('GET', `/ns/${namespace}/connectors/${id}`)
			if (body.latestRun && body.latestRun.system.status !== 'running') return body
			if (Date.now() > deadline) throw new Error(`connector ${id} did not finish: ${JSON.stringify(body)}`)
			await Bun.sleep(100)
		}
	}

	beforeAll(async () => {
		emulator.put({
			id: 'not_1',
			title: 'Greenhouse heater',
			attendees: [{ name: 'Ann Lee', email: 'ann@example.com' }],
			calendar_event: { scheduled_start_time: '2026-11-02T09:00:00.000Z' },
			summary_markdown: '- The heater needs a new thermostat',
			transcript: [],
		})
		site.routes.set('/robots.txt', { body: 'User-agent: *\n', type: 'text/plain' })
		site.page('/docs/', htmlPage('Orchard guide', 'The orchard guide covers apple trees', ['pruning.html']))
		site.page('/docs/pruning.html', htmlPage('Pruning', 'Prune apple trees in late winter before buds open'))
		t = await startTestService(driver, {
			env: { MEMORY_URL_ALLOWLIST: '127.0.0.1' },
			plugins: [
				granola({ apiUrl: emulator.url, minRequestIntervalMs: 0 }),
				webCrawler({ urlAllowlist: ['127.0.0.1'], delayMs: 0 }),
			],
		})
		restricted = (await t.json('POST', '/v3/keys', { name: 'team a', containerTags: ['team_a'] })).body.key
	}, 120_000)
	afterAll(async () => {
		await t?.stop()
		emulator.stop()
		site.stop()
	})

	it('creates a config-only connector (201, no authorization) that syncs into the namespace', async () => {
		const created = await t.json('POST', '/ns/orchard/connectors', {
			provider: 'web-crawler',
			config: { startUrl: `${site.origin}/docs/`, crawlDepth: 2 },
			documentLimit: 10,
		})
		expect(created.status).toBe(201)
		expect(created.body).toEqual({ id: expect.any(String), authorization: null })
		const connector = await settled('orchard', created.body.id)
		expect(connector).toMatchObject({
			provider: 'web-crawler',
			namespace: 'orchard',
			config: { startUrl: `${site.origin}/docs/`, crawlDepth: 2 },
			selection: null,
			documentLimit: 10,
			system: { status: 'active' },
		})
		expect(connector.latestRun.system.status).toBe('completed')
		expect(connector.system.createdAt).toMatch(TIMESTAMP)
		expect(connector.documentCount).toBeGreaterThan(0)
		const listed = await t.json('POST', '/ns/orchard/list/documents', {})
		expect(listed.body.documents.length).toBe(connector.documentCount)
	})

	it('never returns credentials; lists per namespace and across namespaces with provider and paging', async () => {
		const created = await t.json('POST', '/ns/meetings/connectors', {
			provider: 'granola',
			config: { apiKey: emulator.apiKey },
		})
		expect(created.status).toBe(201)
		await settled('meetings', created.body.id)
		const all = await t.request('GET', '/connectors?limit=10')
		const text = await all.text()
		expect(text).not.toContain(emulator.apiKey)
		const body = JSON.parse(text)
		expect(body.connectors.map((c: { namespace: string }) => c.namespace).sort()).toEqual(['meetings', 'orchard'])
		expect(body.pagination).toEqual({ currentPage: 1, limit: 10, totalItems: 2, totalPages: 1 })
		const granolaOnly = await t.json('GET', '/connectors?provider=granola')
		expect(granolaOnly.body.connectors.map((c: { provider: string }) => c.provider)).toEqual(['granola'])
		const inNamespace = await t.json('GET', '/ns/meetings/connectors')
		expect(inNamespace.body.connectors).toHaveLength(1)
		expect((await t.json('GET', '/connectors?provider=dropbox')).status).toBe(400)
		expect((await t.json('GET', `/ns/orchard/connectors/${created.body.id}`)).status).toBe(404)
	})

	it('shows the last runs with include=syncs, and picker as null', async () => {
		const [connector] = (await t.json('GET', '/ns/orchard/connectors')).body.connectors
		const got = await t.json('GET', `/ns/orchard/connectors/${connector.id}?include=syncs&include=picker`)
		expect(got.body.syncs.length).toBeGreaterThan(0)
		expect(got.body.syncs[0]).toMatchObject({ trigger: expect.any(String), itemsFailed: 0, failures: [] })
		expect(got.body.picker).toBeNull()
	})

	it('syncs on demand (202), updates documentLimit, refuses selection and bad bodies', async () => {
		const [connector] = (await t.json('GET', '/ns/orchard/connectors')).body.connectors
		const sync = await t.json('POST', `/ns/orchard/connectors/${connector.id}/sync`)
		expect(sync.status).toBe(202)
		expect(sync.body).toEqual({ id: connector.id, status: 'queued' })
		await settled('orchard', connector.id)
		const patched = await t.json('PATCH', `/ns/orchard/connectors/${connector.id}`, { documentLimit: 5 })
		expect(patched.body.documentLimit).toBe(5)
		expect(
			(await t.json('PATCH', `/ns/orchard/connectors/${connector.id}`, { selection: { files: ['a'] } })).status,
		).toBe(400)
		expect((await t.json('PATCH', `/ns/orchard/connectors/${connector.id}`, { documentLimit: 0 })).status).toBe(400)
		for (const body of [
			{ provider: 'web-crawler', config: { startUrl: 'https://example.com', crawlDepth: 6 } },
			{ provider: 'web-crawler' },
			{ provider: 'granola', config: {} },
			{ provider: 'notion', config: {} },
			{ provider: 'dropbox' },
		]) {
			const answer = await t.json('POST', '/ns/orchard/connectors', body)
			expect(answer.status).toBe(400)
			expect(answer.body.success).toBe(false)
		}
		expect((await t.json('POST', '/ns/orchard/connectors', { provider: 'notion' })).status).toBe(503)
	})

	it('keeps connectors to their namespace and unrestricted keys', async () => {
		const [connector] = (await t.json('GET', '/ns/orchard/connectors')).body.connectors
		expect((await t.json('GET', '/connectors', undefined, restricted)).body.connectors).toEqual([])
		expect((await t.json('GET', `/ns/orchard/connectors/${connector.id}`, undefined, restricted)).status).toBe(403)
		expect((await t.json('POST', `/ns/orchard/connectors/${connector.id}/sync`, undefined, restricted)).status).toBe(
			403,
		)
		expect((await t.json('DELETE', `/ns/orchard/connectors/${connector.id}`, undefined, restricted)).status).toBe(403)
		const other = await t.createKey('others')
		expect((await t.json('GET', '/connectors', undefined, other)).body.connectors).toEqual([])
		expect((await t.json('GET', `/ns/orchard/connectors/${connector.id}`, undefined, other)).status).toBe(404)
	})

	it('deletes a connector with its documents by default, or keeps them with deleteDocuments=false', async () => {
		const meetings = (await t.json('GET', '/ns/meetings/connectors')).body.connectors[0]
		const kept = await t.json('DELETE', `/ns/meetings/connectors/${meetings.id}?deleteDocuments=false`)
		expect(kept.body).toEqual({ id: meetings.id, deleted: true })
		expect((await t.json('POST', '/ns/meetings/list/documents', {})).body.documents.length).toBe(1)
		const orchard = (await t.json('GET', '/ns/orchard/connectors')).body.connectors[0]
		expect((await t.json('DELETE', `/ns/orchard/connectors/${orchard.id}`)).status).toBe(200)
		expect((await t.json('POST', '/ns/orchard/list/documents', {})).body.documents).toEqual([])
		expect((await t.json('GET', `/ns/orchard/connectors/${orchard.id}`)).status).toBe(404)
		expect((await t.json('GET', '/connectors')).body.connectors).toEqual([])
	})
})
