import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { waitFor } from '../../testkit/wait.ts'

describeEachDriver('profiles and buckets', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver)
		const created = await t.json('POST', '/v4/memories', {
			containerTag: 'alice',
			memories: [
				{ content: 'Alice works as a nurse at the city hospital', isStatic: true, metadata: { kind: 'work' } },
				{ content: 'Alice is married to Bob', isStatic: true, metadata: { kind: 'family' } },
				{ content: 'Alice went hiking in the mountains last weekend', metadata: { kind: 'hobby' } },
				{ content: 'Alice plays the guitar in a band on Fridays', metadata: { kind: 'hobby' } },
			],
		})
		expect(created.status).toBe(201)
	}, 60_000)
	afterAll(() => t.stop())

	it('answers static facts, dynamic context and empty buckets', async () => {
		const { status, body } = await t.json('POST', '/v4/profile', { containerTag: 'alice' })
		expect(status).toBe(200)
		expect(body.profile.static.sort()).toEqual([
			'Alice is married to Bob',
			'Alice works as a nurse at the city hospital',
		])
		expect(body.profile.dynamic).toHaveLength(2)
		expect(body.profile.dynamic).toContain('Alice plays the guitar in a band on Fridays')
		expect(body.profile.buckets).toEqual({})
		expect(body.searchResults).toBeUndefined()
	})

	it('returns only the included sections and applies filters', async () => {
		const only = await t.json('POST', '/v4/profile', { containerTag: 'alice', include: ['dynamic'] })
		expect(Object.keys(only.body.profile)).toEqual(['dynamic'])
		const filtered = await t.json('POST', '/v4/profile', {
			containerTag: 'alice',
			filters: { AND: [{ key: 'kind', value: 'work' }] },
		})
		expect(filtered.body.profile.static).toEqual(['Alice works as a nurse at the city hospital'])
		expect(filtered.body.profile.dynamic).toEqual([])
	})

	it('runs a memory search with q and reports it', async () => {
		const { status, body } = await t.json('POST', '/v4/profile', {
			containerTag: 'alice',
			q: 'guitar band',
			threshold: 0,
		})
		expect(status).toBe(200)
		expect(body.searchResults.total).toBe(body.searchResults.results.length)
		expect(body.searchResults.results[0].memory).toBe('Alice plays the guitar in a band on Fridays')
		expect(typeof body.searchResults.timing).toBe('number')
	})

	it('rejects bad input with a 400 naming the field', async () => {
		const cases: [unknown, string][] = [
			[{ containerTag: 'x'.repeat(101) }, 'containerTag'],
			[{ containerTag: 'bad tag!' }, 'containerTag'],
			[{ containerTag: 'alice', threshold: 1.5 }, 'threshold'],
			[{ containerTag: 'alice', threshold: -0.1 }, 'threshold'],
			[{ containerTag: 'alice', include: ['static', 'everything'] }, 'include'],
			[{ containerTag: 'alice', buckets: ['nope'] }, 'buckets'],
			[
				{
					containerTag: 'alice',
					filters: { AND: [{ AND: [{ AND: [{ AND: [{ AND: [{ AND: [{ key: 'a', value: 'b' }] }] }] }] }] }] },
				},
				'filters',
			],
		]
		for (const [body, field] of cases) {
			const answer = await t.json('POST', '/v4/profile', body)
			expect(answer.status).toBe(400)
			expect(JSON.stringify(answer.body)).toContain(field)
		}
	})

	it('merges organization and tag buckets and re-sorts memories when they change', async () => {
		const org = await t.json('PATCH', '/v3/settings', {
			profileBuckets: [
				{ key: 'work', description: 'Career, job, employer, colleagues and professional projects' },
				{ key: 'hobbies', description: 'Hobbies, sports, music and free-time activities' },
			],
		})
		expect(org.status).toBe(200)
		const tag = await t.json('PATCH', '/v3/container-tags/alice', {
			profileBuckets: [
				{ key: 'family', description: 'Family members, marriage, spouse, children, parents and relatives' },
				{ key: 'hobbies', description: 'Music, guitar, hiking and free-time activities' },
			],
		})
		expect(tag.status).toBe(200)
		const buckets = await t.json('POST', '/v4/profile/buckets', { containerTag: 'alice' })
		expect(buckets.body.buckets.map((b: { key: string }) => b.key)).toEqual(['work', 'hobbies', 'family'])
		expect(buckets.body.buckets[1].description).toContain('guitar')
		const other = await t.json('POST', '/v4/profile/buckets', { containerTag: 'someone-else' })
		expect(other.body.buckets.map((b: { key: string }) => b.key)).toEqual(['work', 'hobbies'])

		const sorted = await waitFor(async () => {
			const { body } = await t.json('POST', '/v4/profile', { containerTag: 'alice', include: ['buckets'] })
			const { work, hobbies, family } = body.profile.buckets
			return work.length > 0 && hobbies.length > 0 && family.length > 0 ? body : null
		})
		expect(Object.keys(sorted.profile)).toEqual(['buckets'])
		expect(sorted.profile.buckets.work).toContain('Alice works as a nurse at the city hospital')
		expect(sorted.profile.buckets.hobbies).toContain('Alice plays the guitar in a band on Fridays')
		expect(sorted.profile.buckets.family).toContain('Alice is married to Bob')
		const picked = await t.json('POST', '/v4/profile', {
			containerTag: 'alice',
			include: ['buckets'],
			buckets: ['work'],
		})
		expect(Object.keys(picked.body.profile.buckets)).toEqual(['work'])
	})
})
