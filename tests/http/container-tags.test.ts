import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { publishedOAuthConnectors } from '../../testkit/published-connectors.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describeEachDriver('container tags', (driver) => {
	let t: TestService
	let otherKey: string
	beforeAll(async () => {
		t = await startTestService(driver, { plugins: await publishedOAuthConnectors() })
		otherKey = await t.createKey('Other Org')
		for (const [tag, customId, content] of [
			['team-a', 'shared', 'Team A notes about the launch plan'],
			['team-a', 'a-only', 'Team A retro'],
			['team-b', 'shared', 'Team B notes about hiring'],
			['team-c', 'c1', 'Team C roadmap'],
		]) {
			const added = await t.json('POST', '/v3/documents', { content, containerTag: tag, customId })
			await t.waitForStatus(added.body.id, ['done'])
		}
		await t.json('POST', '/v4/memories', {
			containerTag: 'team-b',
			memories: [{ content: 'Team B hires two engineers' }],
		})
	}, 120_000)
	afterAll(() => t.stop())

	it('lists tags with counts and last activity, per organization', async () => {
		const { status, body } = await t.json('GET', '/v3/container-tags/list')
		expect(status).toBe(200)
		const b = body.find((tag: { containerTag: string }) => tag.containerTag === 'team-b')
		expect(b.documentCount).toBe(2)
		expect(b.memoryCount).toBeGreaterThanOrEqual(1)
		expect(Date.parse(b.lastActivityAt)).toBeGreaterThan(0)
		expect((await t.json('GET', '/v3/container-tags/list', undefined, otherKey)).body).toEqual([])
	})

	it('configures a tag (even before ingest) and answers 404 for an unknown one', async () => {
		expect((await t.json('GET', '/v3/container-tags/nobody')).status).toBe(404)
		const patched = await t.json('PATCH', '/v3/container-tags/new-user', {
			name: 'New user',
			entityContext: 'A customer of the bakery',
		})
		expect(patched.status).toBe(200)
		expect(patched.body).toMatchObject({ containerTag: 'new-user', name: 'New user', profileBuckets: [] })
		expect(patched.body.createdAt).toBeUndefined()
		const got = await t.json('GET', '/v3/container-tags/new-user')
		expect(got.body.entityContext).toBe('A customer of the bakery')
		expect(got.body.memoryFilesystemPaths).toBeNull()
		expect((await t.json('GET', '/v3/container-tags/new-user', undefined, otherKey)).status).toBe(404)
		const plain = await t.json('GET', '/v3/container-tags/team-a')
		expect(plain.status).toBe(200)
		expect(plain.body.name).toBeNull()
	})

	it('rejects bad tags and bad settings with a 400 and changes nothing', async () => {
		expect((await t.json('PATCH', `/v3/container-tags/${'x'.repeat(101)}`, { name: 'x' })).status).toBe(400)
		const bad = await t.json('PATCH', '/v3/container-tags/new-user', { profileBuckets: [{ key: 'Bad Key' }] })
		expect(bad.status).toBe(400)
		expect(JSON.stringify(bad.body)).toContain('profileBuckets')
		expect((await t.json('GET', '/v3/container-tags/new-user')).body.profileBuckets).toEqual([])
		const credential = await t.json('PATCH', '/v3/settings', { githubClientId: 'has spaces in it' })
		expect(credential.status).toBe(400)
	})

	it('validates merges: itself, unknown sources, too many', async () => {
		const self = await t.json('POST', '/v3/container-tags/merge', {
			containerTags: ['team-a'],
			targetContainerTag: 'team-a',
		})
		expect(self.status).toBe(400)
		expect(JSON.stringify(self.body)).toContain('targetContainerTag')
		const unknown = await t.json('POST', '/v3/container-tags/merge', {
			containerTags: ['ghost'],
			targetContainerTag: 'team-a',
		})
		expect(unknown.status).toBe(404)
		const many = await t.json('POST', '/v3/container-tags/merge', {
			containerTags: Array.from({ length: 11 }, (_, i) => `t${i}`),
			targetContainerTag: 'team-a',
		})
		expect(many.status).toBe(400)
		expect((await t.json('GET', '/v3/container-tags/merge/nope')).status).toBe(404)
	})

	it('merges source tags into a target in the background', async () => {
		const queued = await t.json('POST', '/v3/container-tags/merge', {
			containerTags: ['team-b'],
			targetContainerTag: 'team-a',
		})
		expect(queued.status).toBe(202)
		expect(queued.body).toMatchObject({ success: true, status: 'queued', targetTag: 'team-a', sourceTags: ['team-b'] })
		let merge: any
		for (let i = 0; i < 200; i++) {
			merge = (await t.json('GET', `/v3/container-tags/merge/${queued.body.mergeId}`)).body
			if (merge.status === 'done' || merge.status === 'failed') break
			await Bun.sleep(100)
		}
		expect(merge).toMatchObject({ id: queued.body.mergeId, status: 'done', documentsMoved: 2, customIdConflicts: 1 })
		expect(merge.memoriesMoved).toBeGreaterThanOrEqual(1)
		expect((await t.json('GET', `/v3/container-tags/merge/${queued.body.mergeId}`, undefined, otherKey)).status).toBe(
			404,
		)
		const list = (await t.json('GET', '/v3/container-tags/list')).body
		expect(list.find((tag: { containerTag: string }) => tag.containerTag === 'team-b')).toBeUndefined()
		expect(list.find((tag: { containerTag: string }) => tag.containerTag === 'team-a').documentCount).toBe(4)
		const profile = await t.json('POST', '/v4/profile', { containerTag: 'team-a', include: ['dynamic'] })
		expect(profile.body.profile.dynamic).toContain('Team B hires two engineers')
	})

	it('deletes a tag with its documents, memories and settings', async () => {
		await t.json('PATCH', '/v3/container-tags/team-c', { name: 'Team C' })
		await t.json('POST', '/v4/memories', { containerTag: 'team-c', memories: [{ content: 'Team C ships in May' }] })
		const deleted = await t.json('DELETE', '/v3/container-tags/team-c')
		expect(deleted.status).toBe(200)
		expect(deleted.body).toMatchObject({ success: true, containerTag: 'team-c', deletedDocumentsCount: 2 })
		expect(deleted.body.deletedMemoriesCount).toBeGreaterThanOrEqual(1)
		expect((await t.json('GET', '/v3/container-tags/team-c')).status).toBe(404)
		const profile = await t.json('POST', '/v4/profile', { containerTag: 'team-c' })
		expect(profile.body.profile).toMatchObject({ static: [], dynamic: [] })
		expect((await t.json('DELETE', '/v3/container-tags/team-c')).status).toBe(404)
	})

	it('reset counts memory rows and removed tag settings', async () => {
		const reset = await t.json('POST', '/v3/settings/reset', { confirmation: 'default' })
		expect(reset.status).toBe(200)
		expect(reset.body.deletedMemoryRows).toBeGreaterThanOrEqual(1)
		expect(reset.body.deletedExtraSpaces).toBe(1)
		expect((await t.json('GET', '/v3/container-tags/list')).body).toEqual([])
	})
})
