import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { waitFor } from '../../testkit/wait.ts'

describeEachDriver('v5 namespaces, organization and feedback', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver)
		for (const [namespace, content] of [
			['ns_a', 'Anna collects stamps.'],
			['ns_b', 'Ben grows tomatoes.'],
			['ns_c', 'Cleo writes poems.'],
		]) {
			const added = await t.json('POST', `/ns/${namespace}/document`, { content, id: `${namespace}_doc` })
			await t.waitForStatus(added.body.id)
		}
	}, 120_000)
	afterAll(() => t.stop())

	it('lists namespaces with counts and pagination; /namespaces is the same list', async () => {
		const page = await t.json('GET', '/ns?limit=2&page=1')
		expect(page.status).toBe(200)
		expect(page.body.namespaces).toHaveLength(2)
		expect(page.body.pagination).toEqual({ currentPage: 1, limit: 2, totalItems: 3, totalPages: 2 })
		const item = page.body.namespaces[0]
		expect(Object.keys(item).sort()).toEqual([
			'description',
			'documentCount',
			'id',
			'memoryCount',
			'namespace',
			'system',
		])
		expect(item.documentCount).toBe(1)
		expect(item.system.createdAt).toMatch(/Z$/)
		const alias = await t.json('GET', '/namespaces?limit=2&page=1')
		expect(alias.body).toEqual(page.body)
		expect((await t.json('GET', '/ns?limit=101')).status).toBe(400)
		expect((await t.json('GET', '/ns?page=0')).status).toBe(400)
	})

	it('reads and sets supportingContext (null clears it), shared with v3 entityContext', async () => {
		const got = await t.json('GET', '/ns/ns_a')
		expect(got.body).toEqual({ namespace: 'ns_a', supportingContext: null, system: expect.any(Object) })
		const set = await t.json('PATCH', '/ns/ns_a', { supportingContext: 'Anna is a collector' })
		expect(set.body.supportingContext).toBe('Anna is a collector')
		expect((await t.json('GET', '/v3/container-tags/ns_a')).body.entityContext).toBe('Anna is a collector')
		const cleared = await t.json('PATCH', '/ns/ns_a', { supportingContext: null })
		expect(cleared.body.supportingContext).toBeNull()
		expect((await t.json('PATCH', '/ns/ns_a', { supportingContext: 'x'.repeat(1501) })).status).toBe(400)
		expect((await t.json('PATCH', '/ns/ns_a', { name: 'x' })).status).toBe(400)
		expect((await t.json('GET', '/ns/never_written')).status).toBe(404)
		expect((await t.json('PATCH', '/ns/never_written', {})).status).toBe(404)
	})

	it('deletes a namespace with counts, or moves it with moveTo (202)', async () => {
		const moved = await t.json('DELETE', '/ns/ns_b?moveTo=ns_c')
		expect(moved.status).toBe(202)
		expect(moved.body).toEqual({ status: 'queued', operationId: expect.any(String), namespace: 'ns_b', moveTo: 'ns_c' })
		await waitFor(async () => (await t.json('GET', '/ns/ns_c/document/ns_b_doc')).status === 200, 20_000)
		expect((await t.json('DELETE', '/ns/ns_c?moveTo=ns_c')).status).toBe(400)
		expect((await t.json('DELETE', '/ns/ns_c?moveTo=bad%20name')).status).toBe(400)
		const deleted = await t.json('DELETE', '/ns/ns_c')
		expect(deleted.status).toBe(200)
		expect(deleted.body).toMatchObject({ status: 'deleted', namespace: 'ns_c' })
		expect(deleted.body.deletedDocumentsCount).toBe(2)
		expect(typeof deleted.body.deletedMemoriesCount).toBe('number')
		expect((await t.json('GET', '/ns/ns_c/document/ns_c_doc')).status).toBe(404)
		expect((await t.json('DELETE', '/ns/ns_c')).status).toBe(404)
	})

	it('reads and sets the organizational context (null clears it; shared with v3 workspacePrompt)', async () => {
		const before = await t.json('GET', '/organization')
		expect(before.body).toEqual({ organizationalContext: null, namespaceCount: expect.any(Number) })
		const set = await t.json('PATCH', '/organization', { organizationalContext: 'A bakery chain' })
		expect(set.body.organizationalContext).toBe('A bakery chain')
		expect((await t.json('GET', '/v3/settings')).body.workspacePrompt).toBe('A bakery chain')
		expect(
			(await t.json('PATCH', '/organization', { organizationalContext: null })).body.organizationalContext,
		).toBeNull()
		expect((await t.json('PATCH', '/organization', {})).status).toBe(400)
		expect((await t.json('PATCH', '/organization', { organizationalContext: '' })).status).toBe(400)
	})

	it('stores feedback for the organization, 3 a UTC day (then 429 with Retry-After); a key is required', async () => {
		const body = { type: 'bug', title: 'Search misses', description: 'Steps...', extra: 'allowed' }
		const anonymous = await t.request('POST', '/feedback', { body, key: null })
		expect(anonymous.status).toBe(401)
		expect(((await anonymous.json()) as any).error).toBeString()
		const invalid = await t.json('POST', '/feedback', { type: 'rant', title: '', description: 'x' })
		expect(invalid.status).toBe(400)
		expect(invalid.body.success).toBe(false)

		const restricted = (await t.json('POST', '/v3/keys', { name: 'team', containerTags: ['ns_a'] })).body.key
		const sent = [
			await t.json('POST', '/feedback', { ...body, endpoint: '/ns/ns_a/search', contactEmail: 'ann@example.com' }),
			await t.json('POST', '/feedback', { type: 'docs', title: 'Typo', description: 'In the guide' }, restricted),
			await t.json('POST', '/feedback', { type: 'feature_request', title: 'Export', description: 'As CSV' }),
		]
		expect(sent.map((answer) => answer.status)).toEqual([202, 202, 202])
		expect(sent.map((answer) => answer.body.remaining)).toEqual([2, 1, 0])
		for (const answer of sent) expect(answer.body.id).toMatch(/^fb_[a-z0-9]{10}$/)
		const refused = await t.request('POST', '/feedback', { body })
		expect(refused.status).toBe(429)
		const retryAfter = Number(refused.headers.get('retry-after'))
		expect(retryAfter).toBeGreaterThan(0)
		expect(retryAfter).toBeLessThanOrEqual(86_400)

		const other = await t.createKey('feedback_other_org')
		const theirs = await t.json('POST', '/feedback', { type: 'other', title: 'Hello', description: 'From B' }, other)
		expect(theirs.body.remaining).toBe(2)

		const listed = await t.json('GET', '/v3/feedback')
		expect(listed.status).toBe(200)
		expect(listed.body.pagination).toEqual({ currentPage: 1, limit: 20, totalItems: 3, totalPages: 1 })
		expect(listed.body.feedback.map((entry: any) => entry.title).sort()).toEqual(['Export', 'Search misses', 'Typo'])
		const first = listed.body.feedback.find((entry: any) => entry.title === 'Search misses')
		expect(first).toMatchObject({ type: 'bug', endpoint: '/ns/ns_a/search', contactEmail: 'ann@example.com' })
		expect(first.extra).toBeUndefined()
		expect(first.createdAt).toMatch(/Z$/)
		expect((await t.json('GET', '/v3/feedback', undefined, other)).body.feedback.map((e: any) => e.title)).toEqual([
			'Hello',
		])
		expect((await t.json('GET', '/v3/feedback', undefined, restricted)).status).toBe(403)
		expect((await t.json('GET', '/v3/feedback?limit=0')).status).toBe(400)
	})
})
