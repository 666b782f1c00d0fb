import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { FormationContext, LinkableMemory } from '../../core/index.ts'
import { type PreparedCandidate, planFormation } from '../../core/memory/link.ts'
import { contentKey } from '../../core/memory/normalize.ts'
import { vec } from '../../testkit/contract/storage.contract.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { linkableMemory } from '../../testkit/linkable-memory.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { testExtractor } from '../../testkit/test-extractor.ts'

let ids = 0
const newId = () => `new-${++ids}`

function candidate(content: string, overrides: Partial<PreparedCandidate> = {}): PreparedCandidate {
	return {
		content,
		contentKey: contentKey(content),
		vector: vec(1),
		subject: null,
		attribute: null,
		value: null,
		isStatic: false,
		eventDates: [],
		buckets: [],
		source: { chunkPositions: [0], turnIndexes: [] },
		derivedFrom: [],
		metadata: null,
		forgetAfter: null,
		forgetReason: null,
		...overrides,
	}
}

const context = (memories: LinkableMemory[], nearest: FormationContext['nearest'] = []): FormationContext => ({
	memories,
	nearest,
})

describe('memory linking (planFormation)', () => {
	it('adds a source to the memory with the same text instead of a second row', () => {
		const { plan, outcomes } = planFormation(
			[candidate('Alex likes tea.', { source: { chunkPositions: [3], turnIndexes: [1] } })],
			context([linkableMemory('m1', 'alex likes TEA')]),
			{ documentId: 'doc', newId },
		)
		expect(plan.create).toEqual([])
		expect(plan.attach).toEqual([{ memoryId: 'm1', chunkPositions: [3], turnIndexes: [1] }])
		expect(outcomes).toEqual([{ kind: 'duplicate', memoryId: 'm1' }])
	})

	it('merges a statement repeated in one document into the memory it creates', () => {
		const { plan, outcomes } = planFormation(
			[
				candidate('Alex likes tea', { source: { chunkPositions: [0], turnIndexes: [0] } }),
				candidate('Alex likes tea!', { source: { chunkPositions: [2], turnIndexes: [4] } }),
			],
			context([]),
			{ documentId: 'doc', newId },
		)
		expect(plan.create).toHaveLength(1)
		expect(plan.create[0]!.source).toEqual({ chunkPositions: [0, 2], turnIndexes: [0, 4] })
		expect(outcomes[1]).toEqual({ kind: 'duplicate', memoryId: plan.create[0]!.id })
	})

	it('treats a near-identical vector or wording as the same memory', () => {
		const near = planFormation(
			[candidate('Alex is fond of tea', { vector: vec(1, 0.01) })],
			context([linkableMemory('m1', 'Alex enjoys tea')], [[{ memoryId: 'm1', similarity: 0.999 }]]),
			{ documentId: 'doc', newId },
		)
		expect(near.outcomes[0]).toEqual({ kind: 'duplicate', memoryId: 'm1' })
		const reworded = planFormation(
			[candidate('On Mondays Alex drinks green tea at the office desk', { vector: vec(0, 1) })],
			context(
				[linkableMemory('m1', 'On Monday Alex drinks green tea at the office desk')],
				[[{ memoryId: 'm1', similarity: 0.5 }]],
			),
			{ documentId: 'doc', newId },
		)
		expect(reworded.outcomes[0]).toEqual({ kind: 'duplicate', memoryId: 'm1' })
	})

	it('never merges statements that differ in a name, code or number, however close their vectors', () => {
		const memory = linkableMemory('m1', 'The courier Zorbel1 delivered parcel QX0001K to the warehouse')
		const plan = (content: string) =>
			planFormation(
				[candidate(content, { vector: vec(1) })],
				context([memory], [[{ memoryId: 'm1', similarity: 0.9999 }]]),
				{ documentId: 'doc', newId },
			).outcomes[0]!.kind
		expect(plan('The courier Zorbel2 delivered parcel QX0002K to the warehouse')).toBe('new')
		expect(plan('The courier Zorbel1 delivered parcel QX0003K to the warehouse')).toBe('new')
		expect(plan('The courier Mirtel delivered parcel QX0001K to the warehouse')).toBe('new')
		expect(plan('The courier Zorbel1 delivered parcel QX0001K to the warehouse at 9')).toBe('new')
		expect(plan('The courier zorbel1 delivered the parcel QX0001K to the warehouse!')).toBe('duplicate')
	})

	it('makes a changed value of the same subject and attribute the next version (updates)', () => {
		const old = linkableMemory('m1', 'Alex lives in Boston', {
			subject: 'alex',
			attribute: 'residence',
			value: 'boston',
			version: 2,
			rootId: 'm0',
			isStatic: true,
		})
		const { plan, outcomes } = planFormation(
			[candidate('Alex moved to Seattle', { subject: 'alex', attribute: 'residence', value: 'seattle' })],
			// Even a vector this close is no duplicate when the value changed.
			context([old], [[{ memoryId: 'm1', similarity: 0.999 }]]),
			{ documentId: 'doc', newId },
		)
		expect(plan.create).toHaveLength(1)
		expect(plan.create[0]).toMatchObject({
			memory: 'Alex moved to Seattle',
			version: 3,
			parentMemoryId: 'm1',
			rootId: 'm0',
			isLatest: true,
			isStatic: true,
		})
		expect(plan.supersede).toEqual(['m1'])
		expect(plan.links).toEqual([{ fromId: plan.create[0]!.id, toId: 'm1', relation: 'updates' }])
		expect(outcomes[0]).toMatchObject({ kind: 'updates', relatedTo: ['m1'] })
	})

	it('keeps the same value of the same fact as a duplicate', () => {
		const { outcomes } = planFormation(
			[candidate('Alex still lives in Boston', { subject: 'alex', attribute: 'residence', value: 'boston' })],
			context([
				linkableMemory('m1', 'Alex lives in Boston', { subject: 'alex', attribute: 'residence', value: 'boston' }),
			]),
			{ documentId: 'doc', newId },
		)
		expect(outcomes[0]).toEqual({ kind: 'duplicate', memoryId: 'm1' })
	})

	it('versions twice within one document: the middle version is never latest', () => {
		const fact = { subject: 'alex', attribute: 'residence' }
		const { plan } = planFormation(
			[
				candidate('Alex lives in Boston', { ...fact, value: 'boston' }),
				candidate('Alex moved to Seattle', { ...fact, value: 'seattle' }),
			],
			context([]),
			{ documentId: 'doc', newId },
		)
		const [v1, v2] = plan.create
		expect(v1).toMatchObject({ version: 1, isLatest: false })
		expect(v2).toMatchObject({ version: 2, isLatest: true, parentMemoryId: v1!.id, rootId: v1!.id })
		expect(plan.supersede).toEqual([])
	})

	it('links a statement that adds detail to an existing one (extends) and keeps both', () => {
		const { plan, outcomes } = planFormation(
			[candidate('Alex works as a nurse at Boston General on night shifts', { vector: vec(1, 0.3) })],
			context([linkableMemory('m1', 'Alex works as a nurse')], [[{ memoryId: 'm1', similarity: 0.8 }]]),
			{ documentId: 'doc', newId },
		)
		expect(plan.supersede).toEqual([])
		expect(plan.create).toHaveLength(1)
		expect(plan.links).toEqual([{ fromId: plan.create[0]!.id, toId: 'm1', relation: 'extends' }])
		expect(outcomes[0]).toMatchObject({ kind: 'extends', relatedTo: ['m1'] })
	})

	it('marks an inference from other statements and links it to them (derives)', () => {
		const { plan, outcomes } = planFormation(
			[
				candidate('Alex moved to Seattle', { vector: vec(1) }),
				candidate('Alex started a new job in Seattle', { vector: vec(0, 1) }),
				candidate('Alex moved to Seattle for work', { vector: vec(0, 0, 1), derivedFrom: [0, 1] }),
			],
			context([]),
			{ documentId: 'doc', newId },
		)
		const [first, second, inference] = plan.create
		expect(inference).toMatchObject({ isInference: true, version: 1 })
		expect(plan.links).toEqual([
			{ fromId: inference!.id, toId: first!.id, relation: 'derives' },
			{ fromId: inference!.id, toId: second!.id, relation: 'derives' },
		])
		expect(outcomes[2]).toMatchObject({ kind: 'derives', relatedTo: [first!.id, second!.id] })
	})
})

describeEachDriver('memory formation (instant dreaming, test extractor)', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver, { extractor: testExtractor() })
	}, 60_000)
	afterAll(() => t.stop())

	async function ingest(content: string, containerTag: string, extra: Record<string, unknown> = {}) {
		const added = await t.json('POST', '/v3/documents', { content, containerTag, dreaming: 'instant', ...extra })
		expect(added.status).toBe(200)
		return t.waitForStatus(added.body.id)
	}
	const list = async (containerTag: string) =>
		(await t.json('POST', '/v4/memories/list', { containerTags: [containerTag], limit: 100, order: 'asc' })).body
			.memoryEntries

	it('forms memories before done, recorded as a stage, and lists them on the document', async () => {
		const done = await ingest('Alex lives in Boston. Alex works as a nurse.', 'formation_1')
		expect(done.status).toBe('done')
		expect(done.dreamingStatus).toBe('done')
		expect(done.stages.map((stage: { stage: string }) => stage.stage)).toEqual([
			'extracting',
			'chunking',
			'embedding',
			'indexing',
			'memories',
		])
		expect(done.memories.map((m: { memory: string }) => m.memory).sort()).toEqual([
			'Alex lives in Boston.',
			'Alex works as a nurse.',
		])
		for (const memory of done.memories) {
			expect(memory).toMatchObject({ isLatest: true, isForgotten: false, version: 1, sourceCount: 1 })
			expect(memory.id).toHaveLength(22)
		}
	})

	it('turns "Alex moved to Seattle" into version 2 of "Alex lives in Boston" (updates)', async () => {
		await ingest('Alex lives in Boston.', 'formation_2')
		await ingest('Alex moved to Seattle.', 'formation_2')
		const entries = await list('formation_2')
		expect(entries).toHaveLength(1)
		const [latest] = entries
		expect(latest).toMatchObject({ memory: 'Alex moved to Seattle.', version: 2, isLatest: true, isStatic: true })
		expect(latest.history).toEqual([
			expect.objectContaining({ memory: 'Alex lives in Boston.', version: 1, isLatest: false }),
		])
		expect(latest.parentMemoryId).toBe(latest.history[0].id)
		expect(latest.rootMemoryId).toBe(latest.history[0].id)
		expect(latest.memoryRelations).toEqual({ [latest.history[0].id]: 'updates' })
	})

	it('merges the same statement from two documents into one memory with two sources', async () => {
		const first = await ingest('Marie prefers oat milk.', 'formation_3')
		const second = await ingest('Marie prefers oat milk. Marie hates cinnamon.', 'formation_3')
		const entries = await list('formation_3')
		expect(entries.map((entry: { memory: string }) => entry.memory).sort()).toEqual([
			'Marie hates cinnamon.',
			'Marie prefers oat milk.',
		])
		const milk = entries.find((entry: { memory: string }) => entry.memory === 'Marie prefers oat milk.')
		expect(milk.sourceCount).toBe(2)
		expect(milk.documentIds.sort()).toEqual([first.id, second.id].sort())
	})

	it('drops what only the old content stated when a document is re-sent with new content', async () => {
		const first = await ingest('Bea owns a red bike. Bea works at the library.', 'formation_resend', {
			customId: 'bea-notes',
		})
		expect(first.memories).toHaveLength(2)
		const second = await ingest('Bea works at the library. Bea bought a kayak.', 'formation_resend', {
			customId: 'bea-notes',
		})
		expect(second.id).toBe(first.id)
		const texts = (await list('formation_resend')).map((entry: { memory: string }) => entry.memory).sort()
		expect(texts).toEqual(['Bea bought a kayak.', 'Bea works at the library.'])
	})

	it('forms documents that arrive together in one container once each, linked to each other', async () => {
		const hobbies = ['chess', 'rowing', 'pottery', 'fencing', 'archery', 'baking', 'sailing', 'judo']
		const posted = await Promise.all(
			hobbies.map((hobby) =>
				t.json('POST', '/v3/documents', {
					content: `Marie prefers oat milk. Marie practises ${hobby}.`,
					containerTag: 'formation_together',
					dreaming: 'instant',
				}),
			),
		)
		const done = await Promise.all(posted.map((reply) => t.waitForStatus(reply.body.id)))
		expect(done.map((document) => document.status)).toEqual(hobbies.map(() => 'done'))
		const entries = await list('formation_together')
		expect(entries.map((entry: { memory: string }) => entry.memory).sort()).toEqual(
			['Marie prefers oat milk.', ...hobbies.map((hobby) => `Marie practises ${hobby}.`)].sort(),
		)
		const milk = entries.find((entry: { memory: string }) => entry.memory === 'Marie prefers oat milk.')
		expect(milk.documentIds.sort()).toEqual(done.map((document) => document.id).sort())
	})

	it('links added detail (extends) and inferences (derives)', async () => {
		await ingest('Alex works as a nurse.', 'formation_4')
		await ingest(
			'Alex works night shifts as a nurse at Boston General. Alex sleeps during the day. So Alex works nights.',
			'formation_4',
		)
		const entries = await list('formation_4')
		const byText = (text: string) => entries.find((entry: { memory: string }) => entry.memory === text)
		const base = byText('Alex works as a nurse.')
		const detailed = byText('Alex works night shifts as a nurse at Boston General.')
		const inference = byText('Alex works nights.')
		expect(base.isLatest).toBe(true)
		expect(detailed.memoryRelations).toEqual({ [base.id]: 'extends' })
		expect(inference.isInference).toBe(true)
		expect(Object.values(inference.memoryRelations)).toEqual(['derives', 'derives'])
	})

	it('forms no memories for superrag documents', async () => {
		const done = await ingest('Alex lives in Paris.', 'formation_5', { taskType: 'superrag' })
		expect(done.dreamingStatus).toBe('done')
		expect(done.memories).toBeUndefined()
		expect(done.stages.map((stage: { stage: string }) => stage.stage)).not.toContain('memories')
		expect(await list('formation_5')).toEqual([])
	})

	it("re-forms a changed document's memories: what it no longer says goes, what it still says stays", async () => {
		const added = await t.json('POST', '/v3/documents', {
			content: 'Bea likes jazz. Bea owns a red bike.',
			containerTag: 'formation_6',
			customId: 'bea-notes',
			dreaming: 'instant',
		})
		const first = await t.waitForStatus(added.body.id)
		const jazz = first.memories.find((m: { memory: string }) => m.memory === 'Bea likes jazz.')
		await t.json('POST', '/v3/documents', {
			content: 'Bea likes jazz. Bea owns a blue boat.',
			containerTag: 'formation_6',
			customId: 'bea-notes',
			dreaming: 'instant',
		})
		const second = await t.waitForStatus(added.body.id)
		expect(second.memories.map((m: { memory: string }) => m.memory).sort()).toEqual([
			'Bea likes jazz.',
			'Bea owns a blue boat.',
		])
		expect(second.memories.find((m: { memory: string }) => m.memory === 'Bea likes jazz.').id).toBe(jazz.id)
		expect((await list('formation_6')).map((entry: { memory: string }) => entry.memory).sort()).toEqual([
			'Bea likes jazz.',
			'Bea owns a blue boat.',
		])
	})
})

describe('memory formation without an extractor', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: null })
	}, 60_000)
	afterAll(() => t.stop())

	it('still brings documents to done with dreamingStatus done, forming no memories', async () => {
		for (const dreaming of ['instant', 'dynamic']) {
			const added = await t.json('POST', '/v3/documents', { content: 'Alex lives in Boston.', dreaming })
			const done = await t.waitForStatus(added.body.id)
			expect(done).toMatchObject({ status: 'done', dreamingStatus: 'done' })
			expect(done.memories).toBeUndefined()
		}
		const written = await t.json('POST', '/v4/memories', {
			containerTag: 'no_extractor',
			memories: [{ content: 'Direct writes still work' }],
		})
		expect(written.status).toBe(201)
	})
})
