import { describe, expect, it } from 'bun:test'
import type {
	FormationContext,
	FormationPlan,
	FormationProbe,
	MemorySearchQuery,
	NewDocument,
	NewMemory,
	Scope,
	StoragePlugin,
} from '../../core/index.ts'
import { newDocument, newMemory, TEST_VECTOR_SPACE, vec } from './storage.contract.ts'

/**
 * The memory side of the storage contract (core/plugins/memory-storage.ts). Runs inside the storage contract suite,
 * on the plugin it started; vectors are the suite's handcrafted 8-d unit vectors.
 */
export function memoryStorageContract(storage: () => StoragePlugin): void {
	const newScope = async (): Promise<Scope> => ({
		orgId: (await storage().orgs.create(`memory-org-${crypto.randomUUID()}`)).id,
	})
	let docCounter = 0
	const addDocument = async (scope: Scope, overrides: Partial<NewDocument> = {}) => {
		docCounter++
		return (
			await storage().documents.upsert(
				scope,
				newDocument({ containerTag: 'c1', content: `doc ${docCounter}`, contentHash: `h${docCounter}`, ...overrides }),
			)
		).document
	}
	let idCounter = 0
	const memoryId = () => `mem${String(++idCounter).padStart(19, '0')}`
	const memory = (overrides: Partial<NewMemory> & { memory: string }): NewMemory =>
		newMemory({ ...overrides, id: overrides.id ?? memoryId() })
	const emptyProbe: FormationProbe = { vectors: [], neighbours: 0, contentKeys: [], facts: [] }
	const plan = (overrides: Partial<FormationPlan>): FormationPlan => ({
		documentId: null,
		create: [],
		attach: [],
		supersede: [],
		links: [],
		replaceDocumentSources: false,
		...overrides,
	})
	/** Applies a plan that needs no context. */
	const write = (scope: Scope, containerTag: string, formation: FormationPlan) =>
		storage().memories.form(scope, containerTag, null, emptyProbe, () => formation)
	const searchQuery = (overrides: Partial<MemorySearchQuery> = {}): MemorySearchQuery => ({
		containerTags: ['c1'],
		vector: vec(1),
		terms: [],
		includeForgotten: false,
		includeHistory: false,
		limit: 10,
		...overrides,
	})

	describe('memories', () => {
		it('creates memories with their sources and reads them back by id, content and document', async () => {
			const scope = await newScope()
			const document = await addDocument(scope)
			const created = memory({
				memory: 'Alex lives in Boston',
				subject: 'alex',
				attribute: 'residence',
				value: 'boston',
				isStatic: true,
				metadata: { topic: 'home' },
				eventDates: ['2024-05-01'],
				source: { chunkPositions: [0, 2], turnIndexes: [3] },
			})
			const result = await write(scope, 'c1', plan({ documentId: document.id, create: [created] }))
			expect(result).toEqual({ created: [created.id], attached: [], superseded: [], released: 0 })
			const stored = await storage().memories.get(scope, created.id)
			expect(stored).toMatchObject({
				id: created.id,
				orgId: scope.orgId,
				containerTag: 'c1',
				memory: 'Alex lives in Boston',
				version: 1,
				isLatest: true,
				parentMemoryId: null,
				rootMemoryId: null,
				isStatic: true,
				isForgotten: false,
				forgetAfter: null,
				isInference: false,
				subject: 'alex',
				attribute: 'residence',
				value: 'boston',
				metadata: { topic: 'home' },
				eventDates: ['2024-05-01'],
				buckets: [],
				documentIds: [document.id],
			})
			expect(stored?.createdAt).toBeInstanceOf(Date)
			expect((await storage().memories.findByContent(scope, 'c1', 'Alex lives in Boston'))?.id).toBe(created.id)
			expect(await storage().memories.findByContent(scope, 'c2', 'Alex lives in Boston')).toBeNull()
			// As a client wrote it: final punctuation and whitespace aside, never other words.
			expect((await storage().memories.findByContent(scope, 'c1', 'Alex lives in Boston. '))?.id).toBe(created.id)
			expect((await storage().memories.findByContent(scope, 'c1', 'Alex lives in Boston!?'))?.id).toBe(created.id)
			expect(await storage().memories.findByContent(scope, 'c1', 'Alex lives in Bost')).toBeNull()
			expect(await storage().memories.findByContent(scope, 'c1', '...')).toBeNull()
			expect((await storage().memories.ofDocument(scope, document.id)).map((m) => m.id)).toEqual([created.id])
			expect(await storage().memories.getMany(scope, [created.id, 'unknown', created.id])).toHaveLength(1)
		})

		it('makes a new version: the old one stops being latest, the chain and its links read back', async () => {
			const scope = await newScope()
			const document = await addDocument(scope)
			const v1 = memory({ memory: 'Alex lives in Boston' })
			await write(scope, 'c1', plan({ documentId: document.id, create: [v1] }))
			const v2 = memory({ memory: 'Alex moved to Seattle', version: 2, parentMemoryId: v1.id, rootId: v1.id })
			const result = await write(
				scope,
				'c1',
				plan({
					documentId: document.id,
					create: [v2],
					supersede: [v1.id],
					links: [{ fromId: v2.id, toId: v1.id, relation: 'updates' }],
				}),
			)
			expect(result?.superseded).toEqual([v1.id])
			expect(await storage().memories.get(scope, v1.id)).toMatchObject({ isLatest: false, version: 1 })
			expect(await storage().memories.get(scope, v2.id)).toMatchObject({
				isLatest: true,
				version: 2,
				parentMemoryId: v1.id,
				rootMemoryId: v1.id,
			})
			const graph = await storage().memories.graph(scope, [v2.id])
			expect(graph.memories.map((m) => m.id)).toEqual([v1.id, v2.id])
			expect(graph.links).toEqual([{ fromId: v2.id, toId: v1.id, relation: 'updates' }])
		})

		it('attaches another source to an existing memory once, merging positions', async () => {
			const scope = await newScope()
			const [first, second] = [await addDocument(scope), await addDocument(scope)]
			const created = memory({ memory: 'Alex likes tea', source: { chunkPositions: [1], turnIndexes: [] } })
			await write(scope, 'c1', plan({ documentId: first.id, create: [created] }))
			const attach = [
				{ memoryId: created.id, chunkPositions: [2], turnIndexes: [4] },
				{ memoryId: created.id, chunkPositions: [0, 2], turnIndexes: [5] },
			]
			const result = await write(scope, 'c1', plan({ documentId: second.id, attach }))
			expect(result?.attached).toEqual([created.id])
			await write(scope, 'c1', plan({ documentId: first.id, attach: [{ ...attach[0]!, chunkPositions: [3] }] }))
			expect((await storage().memories.get(scope, created.id))?.documentIds).toEqual([first.id, second.id])
		})

		it('gives a formation the neighbours, same texts and same facts among latest, active memories only', async () => {
			const scope = await newScope()
			const other = await newScope()
			const document = await addDocument(scope)
			const fact = memory({
				memory: 'Alex lives in Boston',
				subject: 'alex',
				attribute: 'residence',
				embedding: vec(0, 1),
			})
			const near = memory({ memory: 'Alex likes tea', embedding: vec(1, 0.1) })
			const far = memory({ memory: 'Ships sail', embedding: vec(0, 0, 1) })
			const forgotten = memory({ memory: 'Alex likes coffee', embedding: vec(1, 0.05) })
			const expired = memory({
				memory: 'Alex is in Rome this week',
				embedding: vec(1, 0.02),
				forgetAfter: new Date(Date.now() - 60_000),
			})
			await write(scope, 'c1', plan({ documentId: document.id, create: [fact, near, far, forgotten, expired] }))
			await storage().memories.forget(scope, 'c1', [forgotten.id], { reason: null, batchId: null })
			const elsewhere = memory({ memory: 'Alex likes tea', embedding: vec(1) })
			await write(
				scope,
				'c2',
				plan({ documentId: (await addDocument(scope, { containerTag: 'c2' })).id, create: [elsewhere] }),
			)
			await write(other, 'c1', plan({ documentId: (await addDocument(other)).id, create: [memory({ memory: 'x' })] }))

			let seen: FormationContext | null = null
			await storage().memories.form(
				scope,
				'c1',
				null,
				{
					vectors: [vec(1), vec(0, 0, 0, 1)],
					neighbours: 2,
					contentKeys: ['alex likes tea'],
					facts: [{ subject: 'alex', attribute: 'residence' }],
				},
				(context) => {
					seen = context
					return plan({})
				},
			)
			const context = seen as unknown as FormationContext
			expect(context.nearest[0]!.map((hit) => hit.memoryId)).toEqual([near.id, fact.id])
			expect(context.nearest[0]![0]!.similarity).toBeCloseTo(0.995, 2)
			expect(context.nearest[1]).toHaveLength(2)
			const ids = context.memories.map((m) => m.id).sort()
			expect(ids).toContain(fact.id)
			expect(ids).toContain(near.id)
			expect(ids).not.toContain(forgotten.id)
			expect(ids).not.toContain(expired.id)
			expect(ids).not.toContain(elsewhere.id)
			expect(context.memories.find((m) => m.id === fact.id)).toMatchObject({
				subject: 'alex',
				attribute: 'residence',
				rootId: fact.id,
				isLatest: true,
				contentKey: 'alex lives in boston',
			})
		})

		it('gives a formation the memories it asks for by id only from its own container and organization', async () => {
			const scope = await newScope()
			const other = await newScope()
			const own = memory({ memory: 'Own fact' })
			const superseded = memory({ memory: 'Older version', isLatest: false })
			const elsewhere = memory({ memory: 'Other container' })
			const foreign = memory({ memory: 'Other organization' })
			await write(scope, 'c1', plan({ documentId: (await addDocument(scope)).id, create: [own, superseded] }))
			await write(
				scope,
				'c2',
				plan({ documentId: (await addDocument(scope, { containerTag: 'c2' })).id, create: [elsewhere] }),
			)
			await write(other, 'c1', plan({ documentId: (await addDocument(other)).id, create: [foreign] }))
			let seen: FormationContext | null = null
			await storage().memories.form(
				scope,
				'c1',
				null,
				{ ...emptyProbe, ids: [own.id, superseded.id, elsewhere.id, foreign.id, 'missing'] },
				(context) => {
					seen = context
					return plan({})
				},
			)
			const context = seen as unknown as FormationContext
			expect(context.memories.map((m) => m.id).sort()).toEqual([own.id, superseded.id].sort())
			expect(context.memories.find((m) => m.id === superseded.id)?.isLatest).toBe(false)
		})

		it('finds the neighbours of a container too large to search exactly through the vector index', async () => {
			const scope = await newScope()
			const document = await addDocument(scope)
			// 1,200 latest memories (above the exact-search bound, 1,000 while the table holds fewer than 2,747 memories),
			// spread in all 8 dimensions (a seeded sequence). Points on a circle, as this test once used, are a worst case for
			// an approximate index: a greedy walk could stop half way round (found once, similarity 0.89).
			let seed = 12_345
			const next = () => {
				seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
				return seed / 2_147_483_648 - 0.5
			}
			const many = Array.from({ length: 1_200 }, (_, i) =>
				memory({
					memory: `statement ${i}`,
					embedding: vec(...Array.from({ length: TEST_VECTOR_SPACE.dimensions }, next)),
				}),
			)
			await write(scope, 'c1', plan({ documentId: document.id, create: many }))
			const probe = async (target: (typeof many)[number], sameText: (typeof many)[number]) => {
				let seen: FormationContext | null = null
				await storage().memories.form(
					scope,
					'c1',
					null,
					{ vectors: [target.embedding], neighbours: 3, contentKeys: [sameText.contentKey], facts: [] },
					(context) => {
						seen = context
						return plan({})
					},
				)
				const context = seen as unknown as FormationContext
				expect(context.nearest[0]![0]).toMatchObject({ memoryId: target.id })
				expect(context.nearest[0]![0]!.similarity).toBeCloseTo(1, 4)
				expect(context.nearest[0]).toHaveLength(3)
				expect(context.memories.map((m) => m.id)).toEqual(expect.arrayContaining([target.id, sameText.id]))
			}
			// The first formation learns that the container is large; the next ones go to the index at once.
			await probe(many[700]!, many[5]!)
			await probe(many[100]!, many[900]!)
		})

		it('checks the guard, records the formation on the document, or changes nothing', async () => {
			const scope = await newScope()
			const document = await addDocument(scope)
			const created = memory({ memory: 'Guarded fact' })
			const stale = await storage().memories.form(
				scope,
				'c1',
				{ documentId: document.id, contentHash: 'other-hash', extractedTurns: 0 },
				emptyProbe,
				() => plan({ documentId: document.id, create: [created] }),
			)
			expect(stale).toBeNull()
			expect(await storage().memories.get(scope, created.id)).toBeNull()

			const stage = {
				stage: 'memories' as const,
				startedAt: '2026-01-01T00:00:00Z',
				endedAt: null,
				outcome: 'ok' as const,
			}
			const formed = await storage().memories.form(
				scope,
				'c1',
				{ documentId: document.id, contentHash: document.contentHash, extractedTurns: 0 },
				emptyProbe,
				() =>
					plan({
						documentId: document.id,
						create: [created],
						formed: { extractedTurns: 4, turnsHash: 'turns', dreamingDone: true, stage },
					}),
			)
			expect(formed?.created).toEqual([created.id])
			const state = await storage().memories.formationState(document.id)
			expect(state?.document).toMatchObject({ id: document.id, dreamingStatus: 'done' })
			expect({ ...state, document: undefined }).toEqual({
				document: undefined,
				orgId: scope.orgId,
				containerTag: 'c1',
				contentHash: document.contentHash,
				formedHash: document.contentHash,
				extractedTurns: 4,
				turnsHash: 'turns',
			})
			const after = await storage().documents.byId(document.id)
			expect(after).toMatchObject({ dreamingStatus: 'done', stages: [stage] })
			// A formation that read 0 extracted turns is now stale.
			const again = await storage().memories.form(
				scope,
				'c1',
				{ documentId: document.id, contentHash: document.contentHash, extractedTurns: 0 },
				emptyProbe,
				() => plan({}),
			)
			expect(again).toBeNull()
			expect(await storage().memories.formationState('unknown')).toBeNull()
		})

		it('forms several documents in one transaction, leaving out those whose guard fails', async () => {
			const scope = await newScope()
			const [a, b, stale] = [await addDocument(scope), await addDocument(scope), await addDocument(scope)]
			const fromA = memory({ memory: 'Alex lives in Boston' })
			const fromB = memory({ memory: 'Alex moved to Seattle', version: 2, parentMemoryId: fromA.id, rootId: fromA.id })
			const fromStale = memory({ memory: 'never written' })
			let admittedSeen: string[] = []
			const formed = { extractedTurns: 0, turnsHash: null, dreamingDone: true }
			const results = await storage().memories.formMany(
				scope,
				'c1',
				[
					{ documentId: a.id, contentHash: a.contentHash, extractedTurns: 0 },
					{ documentId: b.id, contentHash: b.contentHash, extractedTurns: 0 },
					{ documentId: stale.id, contentHash: 'changed', extractedTurns: 0 },
				],
				emptyProbe,
				(_, admitted) => {
					admittedSeen = [...admitted].sort()
					return [
						plan({ documentId: a.id, create: [{ ...fromA, isLatest: false }], formed }),
						plan({
							documentId: b.id,
							create: [fromB],
							// B also restates A's memory: an attachment to a memory created in the same transaction.
							attach: [{ memoryId: fromA.id, chunkPositions: [1], turnIndexes: [] }],
							links: [{ fromId: fromB.id, toId: fromA.id, relation: 'updates' }],
							formed,
						}),
					]
				},
			)
			expect(admittedSeen).toEqual([a.id, b.id].sort())
			expect(results.map((result) => result.created)).toEqual([[fromA.id], [fromB.id]])
			const restated = await storage().memories.get(scope, fromA.id)
			expect(restated?.isLatest).toBe(false)
			expect(restated?.documentIds.sort()).toEqual([a.id, b.id].sort())
			expect(await storage().memories.get(scope, fromB.id)).toMatchObject({ isLatest: true, version: 2 })
			expect(await storage().memories.get(scope, fromStale.id)).toBeNull()
			for (const document of [a, b]) expect((await storage().documents.byId(document.id))?.dreamingStatus).toBe('done')
			expect((await storage().documents.byId(stale.id))?.dreamingStatus).toBe('dreaming')
			const none = await storage().memories.formMany(
				scope,
				'c1',
				[{ documentId: stale.id, contentHash: 'changed', extractedTurns: 0 }],
				emptyProbe,
				() => [plan({ documentId: stale.id, create: [fromStale] })],
			)
			expect(none).toEqual([])
		})

		it('creates the source document of directly written memories, already done', async () => {
			const scope = await newScope()
			const created = memory({ memory: 'John prefers dark mode' })
			await write(
				scope,
				'c1',
				plan({
					documentId: 'direct0000000000000001',
					createDocument: {
						id: 'direct0000000000000001',
						containerTag: 'c1',
						content: 'John prefers dark mode',
						contentHash: 'direct-hash',
						title: 'John prefers dark mode',
						metadata: null,
					},
					create: [created],
				}),
			)
			expect(await storage().documents.get(scope, 'direct0000000000000001')).toMatchObject({
				status: 'done',
				dreamingStatus: 'done',
				containerTag: 'c1',
				content: 'John prefers dark mode',
			})
			expect((await storage().memories.get(scope, created.id))?.documentIds).toEqual(['direct0000000000000001'])
		})

		it('deletes memories a deleted document alone supported, and repairs their version chains', async () => {
			const scope = await newScope()
			const [a, b, c] = [await addDocument(scope), await addDocument(scope), await addDocument(scope)]
			const v1 = memory({ memory: 'Alex lives in Boston' })
			const shared = memory({ memory: 'Alex likes tea' })
			await write(scope, 'c1', plan({ documentId: a.id, create: [v1, shared] }))
			await write(
				scope,
				'c1',
				plan({ documentId: b.id, attach: [{ memoryId: shared.id, chunkPositions: [], turnIndexes: [] }] }),
			)
			const v2 = memory({ memory: 'Alex moved to Seattle', version: 2, parentMemoryId: v1.id, rootId: v1.id })
			const v3 = memory({ memory: 'Alex moved to Denver', version: 3, parentMemoryId: v2.id, rootId: v1.id })
			await write(
				scope,
				'c1',
				plan({
					documentId: b.id,
					create: [v2],
					supersede: [v1.id],
					links: [{ fromId: v2.id, toId: v1.id, relation: 'updates' }],
				}),
			)
			await write(
				scope,
				'c1',
				plan({
					documentId: c.id,
					create: [v3],
					supersede: [v2.id],
					links: [{ fromId: v3.id, toId: v2.id, relation: 'updates' }],
				}),
			)
			const extension = memory({ memory: 'Alex moved to Seattle for a job' })
			await write(
				scope,
				'c1',
				plan({
					documentId: c.id,
					create: [extension],
					links: [{ fromId: extension.id, toId: v2.id, relation: 'extends' }],
				}),
			)

			// The latest version's document goes: the version before it is latest again.
			expect(await storage().documents.delete(scope, c.id)).toBe(true)
			expect(await storage().memories.get(scope, v3.id)).toBeNull()
			expect(await storage().memories.get(scope, extension.id)).toBeNull()
			expect(await storage().memories.get(scope, v2.id)).toMatchObject({ isLatest: true, version: 2 })
			expect((await storage().memories.graph(scope, [v2.id])).links).toEqual([
				{ fromId: v2.id, toId: v1.id, relation: 'updates' },
			])

			// The first version's document goes: the rest of the chain starts over at version 1.
			expect(await storage().documents.delete(scope, a.id)).toBe(true)
			expect(await storage().memories.get(scope, v1.id)).toBeNull()
			expect(await storage().memories.get(scope, v2.id)).toMatchObject({
				version: 1,
				isLatest: true,
				parentMemoryId: null,
				rootMemoryId: null,
			})
			expect(await storage().memories.get(scope, shared.id)).toMatchObject({ documentIds: [b.id] })
			expect((await storage().memories.graph(scope, [v2.id])).links).toEqual([])

			// Bulk deletes release memories the same way.
			await storage().documents.deleteMany(scope, { containerTags: ['c1'] })
			expect(await storage().memories.getMany(scope, [v2.id, shared.id])).toEqual([])
		})

		it('repairs a chain whose middle version loses its last source', async () => {
			const scope = await newScope()
			const [a, b, c] = [await addDocument(scope), await addDocument(scope), await addDocument(scope)]
			const v1 = memory({ memory: 'v1' })
			const v2 = memory({ memory: 'v2', version: 2, parentMemoryId: v1.id, rootId: v1.id })
			const v3 = memory({ memory: 'v3', version: 3, parentMemoryId: v2.id, rootId: v1.id })
			await write(scope, 'c1', plan({ documentId: a.id, create: [v1] }))
			await write(scope, 'c1', plan({ documentId: b.id, create: [v2], supersede: [v1.id] }))
			await write(scope, 'c1', plan({ documentId: c.id, create: [v3], supersede: [v2.id] }))
			await storage().documents.delete(scope, b.id)
			expect(await storage().memories.get(scope, v3.id)).toMatchObject({
				version: 2,
				parentMemoryId: v1.id,
				rootMemoryId: v1.id,
				isLatest: true,
			})
			expect((await storage().memories.graph(scope, [v3.id])).links).toEqual([
				{ fromId: v3.id, toId: v1.id, relation: 'updates' },
			])
		})

		it("drops a re-extracted document's sources on memories it no longer states", async () => {
			const scope = await newScope()
			const [document, other] = [await addDocument(scope), await addDocument(scope)]
			const kept = memory({ memory: 'kept' })
			const dropped = memory({ memory: 'dropped' })
			const shared = memory({ memory: 'shared' })
			await write(scope, 'c1', plan({ documentId: document.id, create: [kept, dropped, shared] }))
			await write(
				scope,
				'c1',
				plan({ documentId: other.id, attach: [{ memoryId: shared.id, chunkPositions: [], turnIndexes: [] }] }),
			)
			const fresh = memory({ memory: 'fresh' })
			const result = await write(
				scope,
				'c1',
				plan({
					documentId: document.id,
					create: [fresh],
					attach: [{ memoryId: kept.id, chunkPositions: [0], turnIndexes: [] }],
					replaceDocumentSources: true,
				}),
			)
			expect(result?.released).toBe(1)
			expect(await storage().memories.get(scope, dropped.id)).toBeNull()
			expect((await storage().memories.get(scope, shared.id))?.documentIds).toEqual([other.id])
			expect((await storage().memories.ofDocument(scope, document.id)).map((m) => m.memory).sort()).toEqual([
				'fresh',
				'kept',
			])
		})

		it('searches by vector and by words within scope, leaving out forgotten, expired and older versions', async () => {
			const scope = await newScope()
			const document = await addDocument(scope)
			const tea = memory({
				memory: 'Alex drinks green tea every morning',
				embedding: vec(1),
				metadata: { kind: 'habit' },
			})
			const coffee = memory({ memory: 'Sam roasts coffee beans', embedding: vec(1, 1) })
			const old = memory({ memory: 'Alex drank black tea', embedding: vec(1, 0.2) })
			const current = memory({
				memory: 'Alex drinks herbal tea',
				embedding: vec(0, 0, 1),
				version: 2,
				parentMemoryId: old.id,
				rootId: old.id,
			})
			const forgotten = memory({ memory: 'Alex hates tea', embedding: vec(1, 0.1) })
			const expired = memory({
				memory: 'Alex tastes tea today',
				embedding: vec(1, 0.15),
				forgetAfter: new Date(Date.now() - 1000),
			})
			const future = memory({
				memory: 'Alex buys tea tomorrow',
				embedding: vec(0, 1),
				forgetAfter: new Date(Date.now() + 3_600_000),
			})
			await write(
				scope,
				'c1',
				plan({ documentId: document.id, create: [tea, coffee, old, forgotten, expired, future] }),
			)
			await write(scope, 'c1', plan({ documentId: document.id, create: [current], supersede: [old.id] }))
			await storage().memories.forget(scope, 'c1', [forgotten.id], { reason: 'asked', batchId: null })
			const otherContainer = memory({ memory: 'Alex drinks tea in c2', embedding: vec(1) })
			await write(
				scope,
				'c2',
				plan({ documentId: (await addDocument(scope, { containerTag: 'c2' })).id, create: [otherContainer] }),
			)

			const byVector = await storage().memories.searchByVector(scope, searchQuery())
			expect(byVector[0]).toEqual({ memoryId: tea.id, similarity: expect.closeTo(1, 5) })
			const ids = byVector.map((hit) => hit.memoryId)
			expect(ids).toContain(future.id)
			for (const hidden of [old.id, forgotten.id, expired.id, otherContainer.id]) expect(ids).not.toContain(hidden)
			const everything = (
				await storage().memories.searchByVector(scope, searchQuery({ includeForgotten: true, includeHistory: true }))
			).map((hit) => hit.memoryId)
			for (const shown of [old.id, forgotten.id, expired.id]) expect(everything).toContain(shown)
			expect(
				(await storage().memories.searchByVector(scope, searchQuery({ containerTags: null }))).map((h) => h.memoryId),
			).toContain(otherContainer.id)
			expect(
				(await storage().memories.searchByVector(scope, searchQuery({ ids: [coffee.id, old.id] }))).map(
					(h) => h.memoryId,
				),
			).toEqual([coffee.id])
			const filtered = await storage().memories.searchByVector(
				scope,
				searchQuery({
					filters: {
						AND: [
							{
								key: 'kind',
								value: 'habit',
								filterType: 'metadata',
								numericOperator: '=',
								negate: false,
								ignoreCase: false,
							},
						],
					},
				}),
			)
			expect(filtered.map((hit) => hit.memoryId)).toEqual([tea.id])

			const byText = await storage().memories.searchByText(scope, searchQuery({ terms: ['green', 'tea', 'drinks'] }))
			expect(byText[0]).toMatchObject({ memoryId: tea.id, coverage: 1 })
			expect(byText.find((hit) => hit.memoryId === current.id)?.coverage).toBeCloseTo(2 / 3, 5)
			for (const hit of byText) {
				expect(hit.rank).toBeGreaterThan(0)
				expect(hit.rank).toBeLessThanOrEqual(1)
			}
			expect(byText.map((hit) => hit.memoryId)).not.toContain(forgotten.id)
			expect(
				await storage().memories.searchByText(scope, searchQuery({ terms: ["'; DROP TABLE memories; --"] })),
			).toEqual([])
			expect(await storage().memories.searchByText(scope, searchQuery({ terms: [] }))).toEqual([])
		})

		it('samples latest, active memories of the containers, the same ones for the same memories', async () => {
			const scope = await newScope()
			const document = await addDocument(scope)
			const kept = Array.from({ length: 30 }, (_, i) =>
				memory({ memory: `fact number ${i}`, embedding: vec(1, i / 10, (i % 3) / 5) }),
			)
			const forgotten = memory({ memory: 'a forgotten fact', embedding: vec(0, 0, 0, 1) })
			const old = memory({ memory: 'an old fact', embedding: vec(0, 0, 0, 0, 1) })
			const current = memory({
				memory: 'the current fact',
				embedding: vec(1, 3),
				version: 2,
				parentMemoryId: old.id,
				rootId: old.id,
			})
			await write(scope, 'c1', plan({ documentId: document.id, create: [...kept, forgotten, old] }))
			await write(scope, 'c1', plan({ documentId: document.id, create: [current], supersede: [old.id] }))
			await storage().memories.forget(scope, 'c1', [forgotten.id], { reason: 'asked', batchId: null })
			const elsewhere = (await addDocument(scope, { containerTag: 'c2' })).id
			await write(
				scope,
				'c2',
				plan({ documentId: elsewhere, create: [memory({ memory: 'c2', embedding: vec(0, 0, 0, 0, 0, 1) })] }),
			)

			// Compared to 5 decimals: the store may keep vectors at a precision of its own.
			const asArrays = (vectors: Float32Array[]) => vectors.map((vector) => Array.from(vector, (x) => x.toFixed(5)))
			const allowed = asArrays([...kept, current].map((m) => m.embedding!))
			const sample = asArrays(await storage().memories.sampleVectors(scope, ['c1'], 10))
			expect(sample).toHaveLength(10)
			for (const vector of sample) expect(allowed).toContainEqual(vector)
			expect(asArrays(await storage().memories.sampleVectors(scope, ['c1'], 10))).toEqual(sample)
			expect(await storage().memories.sampleVectors(scope, ['c1'], 100)).toHaveLength(31)
			expect(await storage().memories.sampleVectors(scope, null, 100)).toHaveLength(32)
			expect(await storage().memories.sampleVectors(scope, ['c3'], 10)).toEqual([])
		})

		it('lists latest memories with paging, order and metadata filters', async () => {
			const scope = await newScope()
			const document = await addDocument(scope)
			const created = ['one', 'two', 'three', 'four'].map((text, i) =>
				memory({ memory: text, metadata: { n: i, parity: i % 2 === 0 ? 'even' : 'odd' } }),
			)
			for (const m of created) await write(scope, 'c1', plan({ documentId: document.id, create: [m] }))
			const v2 = memory({ memory: 'four, again', version: 2, parentMemoryId: created[3]!.id, rootId: created[3]!.id })
			await write(scope, 'c1', plan({ documentId: document.id, create: [v2], supersede: [created[3]!.id] }))
			const list = (query: Partial<Parameters<StoragePlugin['memories']['list']>[1]>) =>
				storage().memories.list(scope, {
					containerTags: ['c1'],
					page: 1,
					limit: 10,
					sort: 'createdAt',
					order: 'asc',
					...query,
				})
			const all = await list({})
			expect(all.total).toBe(4)
			expect(all.memories.map((m) => m.memory)).toEqual(['one', 'two', 'three', 'four, again'])
			const page = await list({ page: 2, limit: 3, order: 'desc' })
			expect(page.memories.map((m) => m.memory)).toEqual(['one'])
			expect(page.total).toBe(4)
			const even = await list({
				filters: {
					AND: [
						{
							key: 'parity',
							value: 'even',
							filterType: 'metadata',
							numericOperator: '=',
							negate: false,
							ignoreCase: false,
						},
					],
				},
			})
			expect(even.memories.map((m) => m.memory)).toEqual(['one', 'three'])
			expect((await list({ containerTags: ['c2'] })).total).toBe(0)
		})

		it('forgets memories of one container once, with reason and batch', async () => {
			const scope = await newScope()
			const document = await addDocument(scope)
			const [a, b] = [memory({ memory: 'a' }), memory({ memory: 'b' })]
			await write(scope, 'c1', plan({ documentId: document.id, create: [a, b] }))
			expect(await storage().memories.forget(scope, 'c2', [a.id], { reason: null, batchId: null })).toEqual([])
			const forgotten = await storage().memories.forget(scope, 'c1', [a.id, b.id, 'unknown'], {
				reason: 'old news',
				batchId: 'batch-1',
			})
			expect(forgotten.sort()).toEqual([a.id, b.id].sort())
			expect(await storage().memories.get(scope, a.id)).toMatchObject({
				isForgotten: true,
				forgetReason: 'old news',
				forgetBatchId: 'batch-1',
			})
			expect(await storage().memories.forget(scope, 'c1', [a.id], { reason: 'again', batchId: 'batch-2' })).toEqual([])
		})

		it('reports documents waiting for dreaming, per container and oldest first, until they are dreamed', async () => {
			const scope = await newScope()
			const tag = `dream-${crypto.randomUUID()}`
			const first = await addDocument(scope, { containerTag: tag })
			const second = await addDocument(scope, { containerTag: tag })
			const queued = await addDocument(scope, { containerTag: tag })
			for (const document of [first, second]) {
				await storage().documents.setProgress(document.id, {
					contentHash: document.contentHash,
					status: 'done',
					stages: [],
				})
			}
			expect(queued.status).toBe('queued')
			expect(await storage().memories.pendingContainers(100_000)).toContainEqual({
				orgId: scope.orgId,
				containerTag: tag,
			})
			expect(await storage().memories.pendingDocuments(scope.orgId, tag, 10)).toEqual([first.id, second.id])
			expect(await storage().memories.formingDocuments(scope, [tag], 10)).toEqual([first.id, second.id])
			expect(await storage().memories.formingDocuments(scope, null, 10)).toEqual([first.id, second.id])
			expect(await storage().memories.formingDocuments(scope, ['another-tag'], 10)).toEqual([])
			expect(await storage().memories.formingDocuments(await newScope(), [tag], 10)).toEqual([])
			expect(await storage().memories.pendingAgeSeconds(scope.orgId, tag)).toBeGreaterThanOrEqual(0)
			expect(await storage().memories.markDreamed(first.id, 'stale-hash')).toBe(false)
			const stage = {
				stage: 'memories' as const,
				startedAt: '2026-01-01T00:00:00Z',
				endedAt: null,
				outcome: 'failed' as const,
				error: 'x',
			}
			expect(await storage().memories.markDreamed(first.id, first.contentHash, stage)).toBe(true)
			expect(await storage().documents.byId(first.id)).toMatchObject({ dreamingStatus: 'done', stages: [stage] })
			expect(await storage().memories.markDreamed(second.id, second.contentHash)).toBe(true)
			expect(await storage().memories.pendingDocuments(scope.orgId, tag, 10)).toEqual([])
			expect(await storage().memories.pendingAgeSeconds(scope.orgId, tag)).toBeNull()
			expect(await storage().memories.formingDocuments(scope, [tag], 10)).toEqual([])
			expect(await storage().memories.pendingContainers(100_000)).not.toContainEqual({
				orgId: scope.orgId,
				containerTag: tag,
			})
		})

		it('keeps another org out of memories, even with their ids', async () => {
			const scope = await newScope()
			const intruder = await newScope()
			const document = await addDocument(scope)
			const secret = memory({ memory: 'The vault code is 1234', embedding: vec(1) })
			await write(scope, 'c1', plan({ documentId: document.id, create: [secret] }))
			expect(await storage().memories.get(intruder, secret.id)).toBeNull()
			expect(await storage().memories.getMany(intruder, [secret.id])).toEqual([])
			expect(await storage().memories.findByContent(intruder, 'c1', 'The vault code is 1234')).toBeNull()
			expect(await storage().memories.ofDocument(intruder, document.id)).toEqual([])
			expect(await storage().memories.graph(intruder, [secret.id])).toEqual({ memories: [], links: [] })
			expect(await storage().memories.forget(intruder, 'c1', [secret.id], { reason: null, batchId: null })).toEqual([])
			expect(await storage().memories.searchByVector(intruder, searchQuery())).toEqual([])
			expect(await storage().memories.searchByText(intruder, searchQuery({ terms: ['vault'] }))).toEqual([])
			const listed = await storage().memories.list(intruder, {
				containerTags: ['c1'],
				page: 1,
				limit: 10,
				sort: 'createdAt',
				order: 'asc',
			})
			expect(listed).toEqual({ memories: [], total: 0 })
			// A plan from another org cannot supersede or link the memory either.
			const foreign = memory({ memory: 'foreign' })
			await write(
				intruder,
				'c1',
				plan({
					documentId: (await addDocument(intruder)).id,
					create: [foreign],
					supersede: [secret.id],
					links: [{ fromId: foreign.id, toId: secret.id, relation: 'extends' }],
				}),
			)
			expect(await storage().memories.get(scope, secret.id)).toMatchObject({ isLatest: true })
			expect((await storage().memories.graph(scope, [secret.id])).links).toEqual([])
		})
	})
}
