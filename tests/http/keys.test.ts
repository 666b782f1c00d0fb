import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('API key routes', (driver) => {
	let t: TestService
	let otherOrgKey: string
	beforeAll(async () => {
		// The default cache (10 s): revoking over HTTP must still take effect at once.
		t = await startTestService(driver)
		otherOrgKey = await t.createKey('keys-other-org')
	}, 240_000)
	afterAll(() => t.stop())

	describe('create, list and revoke', () => {
		it('creates a key shown once, lists it without the key, and refuses it once revoked', async () => {
			const created = await t.json('POST', '/v3/keys', { name: 'ci runner', expiresInDays: 30 })
			expect(created.status).toBe(201)
			expect(created.body.key).toMatch(/^sm_[0-9A-Za-z]{40}$/)
			expect(created.body.prefix).toBe(created.body.key.slice(0, 10))
			expect(created.body.containerTags).toBeNull()
			const days = (Date.parse(created.body.expiresAt) - Date.now()) / 86_400_000
			expect(days).toBeGreaterThan(29.9)
			expect(days).toBeLessThanOrEqual(30)

			expect((await t.json('GET', '/v3/keys/current', undefined, created.body.key)).status).toBe(200)
			// The last use is recorded beside the request, not before its answer: wait for it.
			let list = await t.json('GET', '/v3/keys')
			for (let i = 0; i < 50 && !list.body.keys.find((key: any) => key.id === created.body.id)?.lastUsedAt; i++) {
				await Bun.sleep(100)
				list = await t.json('GET', '/v3/keys')
			}
			const listed = list.body.keys.find((key: any) => key.id === created.body.id)
			expect(listed).toMatchObject({ name: 'ci runner', prefix: created.body.prefix, expired: false })
			expect(listed.lastUsedAt).not.toBeNull()
			expect(JSON.stringify(list.body)).not.toContain(created.body.key)

			const revoked = await t.json('DELETE', `/v3/keys/${created.body.id}`)
			expect(revoked).toEqual({ status: 200, body: { id: created.body.id, revoked: true } })
			const refused = await t.json('POST', '/v3/documents/list', {}, created.body.key)
			expect(refused.status).toBe(401)
			expect(refused.body.error).toBe('Unauthorized')
			const after = await t.json('GET', '/v3/keys')
			expect(after.body.keys.some((key: any) => key.id === created.body.id)).toBe(false)
			expect((await t.json('DELETE', `/v3/keys/${created.body.id}`)).status).toBe(404)
		})

		it('refuses bad input with a 400 naming the field, storing nothing', async () => {
			const before = (await t.json('GET', '/v3/keys')).body.keys.length
			const bad = [
				{},
				{ name: '   ' },
				{ name: 'x', expiresInDays: 0 },
				{ name: 'x', expiresAt: '2001-01-01T00:00:00Z' },
				{ name: 'x', expiresAt: 'tomorrow' },
				{ name: 'x', expiresAt: '2999-01-01T00:00:00Z', expiresInDays: 3 },
				{ name: 'x', containerTags: [] },
				{ name: 'x', containerTags: ['has space'] },
				{ name: 'x', admin: true },
			]
			for (const body of bad) {
				const answer = await t.json('POST', '/v3/keys', body)
				expect(answer.status).toBe(400)
				expect(answer.body).toMatchObject({ error: expect.any(String), details: expect.any(String) })
			}
			expect((await t.json('GET', '/v3/keys')).body.keys.length).toBe(before)
		})

		it("keeps organizations apart: another organization neither lists nor revokes this one's keys", async () => {
			const mine = await t.json('POST', '/v3/keys', { name: 'mine' })
			const theirs = await t.json('GET', '/v3/keys', undefined, otherOrgKey)
			expect(theirs.status).toBe(200)
			expect(theirs.body.keys.map((key: any) => key.id)).not.toContain(mine.body.id)
			expect((await t.json('DELETE', `/v3/keys/${mine.body.id}`, undefined, otherOrgKey)).status).toBe(404)
			expect((await t.json('GET', '/v3/keys/current', undefined, mine.body.key)).status).toBe(200)
			const current = await t.json('GET', '/v3/keys/current', undefined, otherOrgKey)
			expect(current.body).toMatchObject({ orgName: 'keys-other-org', containerTags: null })
		})

		it('is documented in the OpenAPI document', async () => {
			const spec: any = await (await t.request('GET', '/openapi.json', { key: null })).json()
			expect(spec.paths['/v3/keys'].get).toBeDefined()
			expect(spec.paths['/v3/keys'].post.requestBody).toBeDefined()
			expect(spec.paths['/v3/keys/{keyId}'].delete).toBeDefined()
		})
	})

	describe('expired keys', () => {
		it('are refused by every route group', async () => {
			const expired = 'sm_expiredexpiredexpiredexpiredexpired0001'
			const org = await t.service.plugins.storage.orgs.byName('default')
			await t.service.plugins.storage.keys.create({
				orgId: org!.id,
				name: 'expired',
				prefix: expired.slice(0, 10),
				hash: hashApiKey(expired),
				expiresAt: new Date(Date.now() - 1000),
			})
			const calls: [string, string, unknown?][] = [
				['POST', '/v3/documents', { content: 'x' }],
				['POST', '/v3/documents/list', {}],
				['POST', '/v3/search', { q: 'x' }],
				['POST', '/v4/search', { q: 'x' }],
				['POST', '/v4/memories/list', { containerTags: ['a'] }],
				['POST', '/v4/profile', { containerTag: 'a' }],
				['GET', '/v3/container-tags/list'],
				['GET', '/v3/settings'],
				['GET', '/v3/usage'],
				['GET', '/v3/keys'],
			]
			for (const [method, path, body] of calls) {
				const answer = await t.json(method, path, body, expired)
				expect(`${method} ${path} ${answer.status}`).toBe(`${method} ${path} 401`)
				expect(answer.body.details).toContain('expired')
			}
			const listed = (await t.json('GET', '/v3/keys')).body.keys.find((key: any) => key.name === 'expired')
			expect(listed.expired).toBe(true)
		})
	})
})
