import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { publishedOAuthConnectors } from '../../testkit/published-connectors.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('organization settings', (driver) => {
	let t: TestService
	let otherKey: string
	beforeAll(async () => {
		t = await startTestService(driver, { plugins: await publishedOAuthConnectors() })
		otherKey = await t.createKey('Other Org')
	}, 60_000)
	afterAll(() => t.stop())

	const orgId = async (key?: string) => (await t.json('GET', '/v3/usage', undefined, key)).body.orgId as string

	it('starts with every setting null', async () => {
		const settings = await t.json('GET', '/v3/settings')
		expect(settings.status).toBe(200)
		expect(settings.body.chunkSize).toBeNull()
		expect(settings.body.githubClientSecret).toBeNull()
		expect(settings.body.profileBuckets).toEqual([])
	})

	it('stores client secrets encrypted and only ever returns them masked', async () => {
		const secret = 'gh-secret-0123456789-ABCD'
		const patched = await t.json('PATCH', '/v3/settings', {
			githubClientId: 'Iv1.abcdef',
			githubClientSecret: secret,
			githubCustomKeyEnabled: true,
			chunkSize: 800,
		})
		expect(patched.status).toBe(200)
		expect(patched.body.orgSlug).toBe('default')
		expect(patched.body.updated.githubClientSecret).toBe('****ABCD')
		expect(patched.body.updated.githubClientId).toBe('Iv1.abcdef')
		expect(patched.body.updated.chunkSize).toBe(800)
		expect(JSON.stringify((await t.json('GET', '/v3/settings')).body)).not.toContain(secret)

		const stored = await t.service.plugins.storage.settings.get(await orgId())
		expect(JSON.stringify(stored)).not.toContain(secret)
		expect(String(stored.githubClientSecret)).toStartWith('v1:')
	})

	it('records when custom credentials were enabled, so only later connections use them', async () => {
		const scope = { orgId: await orgId() }
		const first = await t.json('PATCH', '/v3/settings', {
			notionClientId: 'notion-id',
			notionClientSecret: 'notion-secret-1',
			notionCustomKeyEnabled: true,
		})
		expect(first.status).toBe(200)
		const raw = await t.service.plugins.storage.settings.get(scope.orgId)
		const enabledAt = (raw._customKeyEnabledAt as Record<string, string>).notion!
		expect(Date.parse(enabledAt)).toBeGreaterThan(0)
		await Bun.sleep(5)
		await t.json('PATCH', '/v3/settings', { filterPrompt: 'only work documents' })
		const unchanged = await t.service.plugins.storage.settings.get(scope.orgId)
		expect((unchanged._customKeyEnabledAt as Record<string, string>).notion).toBe(enabledAt)
		await t.json('PATCH', '/v3/settings', { notionClientSecret: 'notion-secret-2' })
		const rotated = await t.service.plugins.storage.settings.get(scope.orgId)
		expect(Date.parse((rotated._customKeyEnabledAt as Record<string, string>).notion!)).toBeGreaterThan(
			Date.parse(enabledAt),
		)
	})

	const rejected: [string, Record<string, unknown>, string][] = [
		['a client secret with a space', { googleDriveClientSecret: 'has space' }, 'googleDriveClientSecret'],
		['custom keys enabled without credentials', { onedriveCustomKeyEnabled: true }, 'onedriveClientId'],
		['workspacePrompt mixed with other settings', { workspacePrompt: 'x', chunkSize: 500 }, 'workspacePrompt'],
		['an unknown setting', { colour: 'blue' }, 'colour'],
		['a bucket key with upper case', { profileBuckets: [{ key: 'Work', description: 'x' }] }, 'profileBuckets'],
		['a chunk size out of range', { chunkSize: 5 }, 'chunkSize'],
	]
	for (const [what, body, field] of rejected) {
		it(`rejects ${what} with a 400 naming ${field} and changes nothing`, async () => {
			const before = await t.json('GET', '/v3/settings')
			const response = await t.json('PATCH', '/v3/settings', body)
			expect(response.status).toBe(400)
			expect(response.body.details).toContain(field)
			expect((await t.json('GET', '/v3/settings')).body).toEqual(before.body)
		})
	}

	it("keeps each organization's settings apart", async () => {
		expect((await t.json('GET', '/v3/settings', undefined, otherKey)).body.githubClientId).toBeNull()
		await t.json('PATCH', '/v3/settings', { workspacePrompt: 'Other org context' }, otherKey)
		expect((await t.json('GET', '/v3/settings')).body.workspacePrompt).toBeNull()
	})

	it('resets the organization only with its slug as confirmation', async () => {
		const mine = await t.json('POST', '/v3/documents', { content: 'to be wiped', containerTag: 'reset_me' })
		const theirs = await t.json(
			'POST',
			'/v3/documents',
			{ content: 'must survive', containerTag: 'reset_me' },
			otherKey,
		)
		const wrong = await t.json('POST', '/v3/settings/reset', { confirmation: 'yes' })
		expect(wrong.status).toBe(400)
		expect(wrong.body.details).toContain('"default"')
		expect((await t.json('GET', `/v3/documents/${mine.body.id}`)).status).toBe(200)

		const reset = await t.json('POST', '/v3/settings/reset', { confirmation: 'default' })
		expect(reset.status).toBe(200)
		expect(reset.body).toMatchObject({ success: true, settingsReset: true })
		expect(reset.body.deletedDocumentsApprox).toBeGreaterThanOrEqual(1)
		expect((await t.json('GET', `/v3/documents/${mine.body.id}`)).status).toBe(404)
		expect((await t.json('GET', '/v3/settings')).body.githubClientId).toBeNull()
		expect((await t.json('GET', `/v3/documents/${theirs.body.id}`, undefined, otherKey)).status).toBe(200)
		expect((await t.json('POST', '/v3/settings/reset', { confirmation: 'other-org' }, otherKey)).status).toBe(200)
	})
})
