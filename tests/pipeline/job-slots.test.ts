import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import postgres from 'postgres'
import { Slots } from '../../core/jobs/slots.ts'
import { describePostgres } from '../../testkit/postgres.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describe('Slots', () => {
	it('lets at most its size in at once, and the longest waiting next when one gives its slot back', async () => {
		const slots = new Slots(2)
		const first = await slots.take()
		await slots.take()
		const order: string[] = []
		const third = slots.take().then((release) => {
			order.push('third')
			return release
		})
		const fourth = slots.take().then((release) => {
			order.push('fourth')
			return release
		})
		await Bun.sleep(5)
		expect(order).toEqual([])
		first()
		const releaseThird = await third
		expect(order).toEqual(['third'])
		releaseThird()
		await fourth
		expect(order).toEqual(['third', 'fourth'])
	})

	it('counts a slot given back twice once', async () => {
		const slots = new Slots(1)
		const release = await slots.take()
		release()
		release()
		await slots.take()
		let taken = false
		void slots.take().then(() => {
			taken = true
		})
		await Bun.sleep(5)
		expect(taken).toBe(false)
	})
})

describePostgres('document slots (PostgreSQL)', () => {
	let app: TestService

	beforeAll(async () => {
		// One document per fetch: two documents in their stages at once, four fetched.
		app = await startTestService('postgres', { workerConcurrency: 1 })
	})

	afterAll(async () => {
		await app?.stop()
	})

	it("gives a document's slot to another while it waits for its container's memory formation", async () => {
		const sql = postgres(app.databaseUrl!, { max: 1, onnotice: () => {} })
		const lockHolder = await sql.reserve()
		const post = async (containerTag: string, i: number) => {
			const content = `Caroline: I adopted a puppy named Max ${i} weeks ago.\nMelanie: That is wonderful news!`
			const { body } = await app.json('POST', '/v3/documents', { content, containerTag, dreaming: 'instant' })
			return body.id as string
		}
		const blocked: string[] = []
		try {
			const [org] = await lockHolder<{ id: string }[]>`SELECT id FROM orgs WHERE name = 'default'`
			// The container's formation lock, held elsewhere: its documents wait for their memories.
			await lockHolder.unsafe('SELECT pg_advisory_lock(hashtextextended($1, 0))', [
				`memory-formation:${org!.id}:blocked`,
			])
			for (const i of [1, 2, 3]) blocked.push(await post('blocked', i))
			const free = await post('free', 4)
			expect((await app.waitForStatus(free)).status).toBe('done')
			for (const id of blocked) expect((await app.json('GET', `/v3/documents/${id}`)).body.status).toBe('indexing')
		} finally {
			await lockHolder.unsafe('SELECT pg_advisory_unlock_all()')
			lockHolder.release()
			await sql.end()
		}
		for (const id of blocked) expect((await app.waitForStatus(id)).status).toBe('done')
	})
})
