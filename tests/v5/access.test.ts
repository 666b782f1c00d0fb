import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** Every v5 route with a namespace, as [method, path, body]; `{ns}` is replaced by the namespace tried. */
const NAMESPACE_ROUTES: [string, string, unknown][] = [
	['POST', '/ns/{ns}/document', { content: 'Intruder text' }],
	['DELETE', '/ns/{ns}/document', { ids: ['secret'] }],
	['POST', '/ns/{ns}/document/batch', { documents: [{ content: 'Intruder text' }] }],
	['GET', '/ns/{ns}/document/secret', undefined],
	['PATCH', '/ns/{ns}/document/secret', { content: 'Overwritten' }],
	['POST', '/ns/{ns}/search', { query: 'secret plans' }],
	['POST', '/ns/{ns}/profile', {}],
	['GET', '/ns/{ns}/profile/buckets', undefined],
	['PUT', '/ns/{ns}/profile/buckets', { buckets: { spy: 'x' } }],
	['DELETE', '/ns/{ns}/profile/buckets', { buckets: ['spy'] }],
	['DELETE', '/ns/{ns}/memories', { ids: ['x'] }],
	['DELETE', '/ns/{ns}/memories/semantic', { query: 'secret', dryRun: false }],
	['GET', '/ns/{ns}/memories/x', undefined],
	['POST', '/ns/{ns}/list/documents', {}],
	['GET', '/ns/{ns}', undefined],
	['PATCH', '/ns/{ns}', { supportingContext: 'x' }],
	['DELETE', '/ns/{ns}', undefined],
]

describeEachDriver('v5 tenancy and key restriction', (driver) => {
	let t: TestService
	let otherOrg: string
	let restricted: string
	beforeAll(async () => {
		t = await startTestService(driver)
		otherOrg = await t.createKey('intruders')
		restricted = (await t.json('POST', '/v3/keys', { name: 'team a', containerTags: ['team_a'] })).body.key
		const added = await t.json('POST', '/ns/team_b/document', {
			content: 'Team B secret plans for the launch.',
			id: 'secret',
		})
		await t.waitForStatus(added.body.id)
		await t.json('POST', '/ns/team_a/document', { content: 'Team A notes.', id: 'own' })
	}, 120_000)
	afterAll(() => t.stop())

	it('a key restricted to team_a gets 403 on every route of another namespace', async () => {
		for (const [method, path, body] of NAMESPACE_ROUTES) {
			const answer = await t.json(method, path.replace('{ns}', 'team_b'), body, restricted)
			expect([method, path, answer.status]).toEqual([method, path, 403])
			expect(typeof answer.body.error).toBe('string')
		}
		expect((await t.json('GET', '/ns/team_a/document/own', undefined, restricted)).status).toBe(200)
		expect((await t.json('DELETE', '/ns/team_a?moveTo=team_b', undefined, restricted)).status).toBe(403)
		expect((await t.json('PATCH', '/organization', { organizationalContext: 'x' }, restricted)).status).toBe(403)
		const listed = await t.json('GET', '/ns', undefined, restricted)
		expect(listed.body.namespaces.map((n: { namespace: string }) => n.namespace)).toEqual(['team_a'])
	})

	it("another organization never sees or touches this one's namespace", async () => {
		for (const [method, path, body] of NAMESPACE_ROUTES) {
			await t.json(method, path.replace('{ns}', 'team_b'), body, otherOrg)
		}
		const secret = await t.json('GET', '/ns/team_b/document/secret')
		expect(secret.status).toBe(200)
		expect(secret.body.content).toBe('Team B secret plans for the launch.')
		expect((await t.json('GET', '/ns/team_b/document/secret', undefined, otherOrg)).status).toBe(404)
		const found = await t.json('POST', '/ns/team_b/search', { query: 'secret plans launch', threshold: 0 }, otherOrg)
		expect(
			found.body.results.some((r: { chunk?: string; memory?: string }) =>
				(r.chunk ?? r.memory ?? '').includes('secret'),
			),
		).toBe(false)
		const listed = await t.json('GET', '/ns', undefined, otherOrg)
		expect(listed.body.namespaces.map((n: { namespace: string }) => n.namespace)).not.toContain('team_a')
		expect((await t.json('GET', '/ns/team_a', undefined, otherOrg)).status).toBe(404)
	})

	it('documents cross versions: v5 writes are read by v3 and v4, v3 writes by v5', async () => {
		const v3 = await t.json('GET', '/v3/documents/secret')
		expect(v3.body.containerTag).toBe('team_b')
		expect(v3.body.customId).toBe('secret')
		const v4 = await t.json('POST', '/v4/search', {
			q: 'secret plans launch',
			containerTag: 'team_b',
			searchMode: 'hybrid',
			threshold: 0,
		})
		expect(v4.body.results.length).toBeGreaterThan(0)
		const written = await t.json('POST', '/v3/documents', {
			content: 'Written through v3.',
			containerTag: 'team_c',
			customId: 'from-v3',
		})
		await t.waitForStatus(written.body.id)
		const read = await t.json('GET', '/ns/team_c/document/from-v3')
		expect(read.body.content).toBe('Written through v3.')
		const deleted = await t.json('DELETE', '/ns/team_c/document', { ids: ['from-v3'] })
		expect(deleted.body.count).toBe(1)
		expect((await t.json('GET', `/v3/documents/${written.body.id}`)).status).toBe(404)
	})
})
