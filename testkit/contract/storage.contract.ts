import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
	type ChunkSearchQuery,
	createLogger,
	type DocumentRecord,
	documentHeaders,
	type FilterCondition,
	type FilterExpression,
	type NewChunk,
	type NewConnection,
	type NewDocument,
	type NewMemory,
	newId,
	type PluginContext,
	type QueryFilter,
	type Scope,
	ServiceError,
	StartupError,
	type StoragePlugin,
	type VectorSpace,
} from '../../core/index.ts'
import { memoryStorageContract } from './memory-storage.contract.ts'

/**
 * The suite every storage plugin must pass. `open` gives a plugin on a fresh, empty store, not started yet; `reopen`
 * gives a new, not started plugin on the same store (the suite closes the previous one first); `cleanup` removes the
 * store.
 */
export interface OpenedStorage {
	storage: StoragePlugin
	reopen: () => Promise<StoragePlugin>
	cleanup: () => Promise<void>
}

/** A tiny vector space with handcrafted vectors, so expected similarities can be worked out by hand. */
export const TEST_VECTOR_SPACE: VectorSpace = { id: 'test:handcrafted-8d', dimensions: 8 }

export const context = (vectorSpace: VectorSpace = TEST_VECTOR_SPACE): PluginContext => ({
	logger: createLogger('silent'),
	env: {},
	vectorSpace,
})

/** A unit vector of the test space from its first components. */
export function vec(...components: number[]): Float32Array {
	const vector = new Float32Array(TEST_VECTOR_SPACE.dimensions)
	vector.set(components)
	const length = Math.hypot(...vector)
	return vector.map((value) => value / length)
}

/** A text chunk at `position`, with its vector when one is given. */
export function textChunk(chunk: { content: string; vector?: Float32Array }, position: number): NewChunk {
	return { position, content: chunk.content, type: 'text', metadata: null, embedding: chunk.vector ?? null }
}

/** A connection as a provider's connect call makes it (pending, no secrets), with `overrides`. */
export function newConnection(overrides: Partial<NewConnection> = {}): NewConnection {
	return {
		id: newId(),
		provider: 'github',
		containerTags: ['user_1'],
		documentLimit: null,
		metadata: null,
		redirectUrl: null,
		status: 'pending',
		secrets: null,
		app: null,
		settings: {},
		...overrides,
	}
}

export function newDocument(overrides: Partial<NewDocument> = {}): NewDocument {
	return {
		containerTag: 'default',
		customId: null,
		content: 'some content',
		contentHash: 'hash-1',
		type: 'text',
		taskType: 'memory',
		dreaming: 'dynamic',
		metadata: null,
		filepath: null,
		entityContext: null,
		title: null,
		url: null,
		source: 'text',
		...overrides,
	}
}

/** A latest, first version memory with no fact, sourced by the first chunk; `overrides` may set any field. */
export function newMemory(overrides: Partial<NewMemory> & { id: string; memory: string }): NewMemory {
	return {
		contentKey: overrides.memory.toLowerCase(),
		embedding: vec(1),
		version: 1,
		parentMemoryId: null,
		rootId: overrides.id,
		isLatest: true,
		isStatic: false,
		isInference: false,
		subject: null,
		attribute: null,
		value: null,
		metadata: null,
		eventDates: [],
		buckets: [],
		forgetAfter: null,
		forgetReason: null,
		source: { chunkPositions: [0], turnIndexes: [] },
		...overrides,
	}
}

export function condition(
	overrides: Partial<FilterCondition> & Pick<FilterCondition, 'key' | 'value'>,
): FilterCondition {
	return { filterType: 'metadata', numericOperator: '=', negate: false, ignoreCase: false, ...overrides }
}

export function storageContract(label: string, open: () => Promise<OpenedStorage>): void {
	describe(label, () => {
		let opened: OpenedStorage
		/** Replaced by the restart tests at the end of the suite. */
		let storage: StoragePlugin

		beforeAll(async () => {
			opened = await open()
			storage = opened.storage
			await storage.init?.(context())
			// Starting an embedded store and migrating it can take a while on a busy machine.
		}, 60_000)
		afterAll(async () => {
			await storage?.close?.()
			await opened?.cleanup()
		})

		const newScope = async (): Promise<Scope> => ({
			orgId: (await storage.orgs.create(`org-${crypto.randomUUID()}`)).id,
		})
		const add = async (scope: Scope, overrides: Partial<NewDocument> = {}) =>
			(await storage.documents.upsert(scope, newDocument(overrides))).document
		/** Walks a document's chunks through the pipeline: stage (with their vectors, where given), publish. */
		const index = async (documentId: string, chunks: { content: string; vector?: Float32Array }[]) => {
			await storage.chunks.stage(documentId, chunks.map(textChunk))
			return storage.chunks.publish(documentId)
		}
		const query = (overrides: Partial<ChunkSearchQuery> = {}): ChunkSearchQuery => ({
			containerTags: null,
			vector: vec(1),
			terms: [],
			limit: 10,
			...overrides,
		})
		const listIds = async (scope: Scope, filters?: QueryFilter, extra: { filepath?: string } = {}) => {
			const { documents } = await storage.documents.list(scope, {
				filters,
				...extra,
				page: 1,
				limit: 100,
				sort: 'createdAt',
				order: 'asc',
			})
			return documents.map((document) => document.id)
		}

		describe('startup', () => {
			it('runs its migrations again without harm', async () => {
				const scope = await newScope()
				const document = await add(scope, { customId: 'survives-init' })
				await storage.init?.(context())
				expect((await storage.documents.get(scope, 'survives-init'))?.id).toBe(document.id)
			})

			it('hands the job queue a way into the same database', async () => {
				const database = storage.jobDatabase()
				if (database.kind === 'connection-string') {
					expect(database.connectionString).toMatch(/^postgres(ql)?:\/\//)
				} else {
					expect((await database.executeSql('SELECT 1 + $1::int AS two', [1])).rows).toEqual([{ two: 2 }])
				}
			})
		})

		describe('orgs and keys', () => {
			it('creates orgs and finds them by name and id', async () => {
				const before = await storage.orgs.count()
				const name = `acme-${crypto.randomUUID()}`
				const org = await storage.orgs.create(name)
				expect(org.name).toBe(name)
				expect(org.createdAt).toBeInstanceOf(Date)
				expect(await storage.orgs.byName(name)).toEqual(org)
				expect(await storage.orgs.byId(org.id)).toEqual(org)
				expect(await storage.orgs.byName('no-such-org')).toBeNull()
				expect(await storage.orgs.byId('no-such-id')).toBeNull()
				expect(await storage.orgs.count()).toBe(before + 1)
			})

			it('finds a key by hash until it is revoked', async () => {
				const org = await storage.orgs.create(`keys-${crypto.randomUUID()}`)
				const hash = `hash-${crypto.randomUUID()}`
				const key = await storage.keys.create({ orgId: org.id, name: 'ci', prefix: 'sm_abc', hash })
				expect(key).toMatchObject({ orgId: org.id, name: 'ci', prefix: 'sm_abc', lastUsedAt: null, revokedAt: null })
				expect(await storage.keys.byHash(hash)).toEqual({ ...key, orgName: org.name })
				expect(await storage.keys.byHash('unknown-hash')).toBeNull()

				expect(await storage.keys.revoke(key.id)).toBe(true)
				expect(await storage.keys.revoke(key.id)).toBe(false)
				expect(await storage.keys.byHash(hash)).toBeNull()
				const listed = (await storage.keys.list()).find((candidate) => candidate.id === key.id)
				expect(listed?.orgName).toBe(org.name)
				expect(listed?.revokedAt).toBeInstanceOf(Date)
			})
		})

		describe('documents.upsert', () => {
			it('inserts a new document as queued, with every field stored', async () => {
				const scope = await newScope()
				const input = newDocument({
					containerTag: 'project_x',
					customId: 'doc-1',
					content: 'The owl sits on the shelf.',
					contentHash: 'h-owl',
					dreaming: 'instant',
					taskType: 'superrag',
					metadata: { topic: 'birds', year: 2024, public: true, tags: ['a', 'b'] },
					filepath: '/notes/owl.md',
					entityContext: 'a note about owls',
					title: 'Owl',
					url: 'https://example.test/owl',
					source: 'api',
					connectionId: 'connection-1',
				})
				const result = await storage.documents.upsert(scope, input)
				expect(result).toMatchObject({ created: true, needsProcessing: true })
				const { connectionId, ...fields } = input
				expect(result.document).toMatchObject({
					...fields,
					connectionId,
					orgId: scope.orgId,
					status: 'queued',
					dreamingStatus: 'dreaming',
					stages: [],
					summary: null,
					error: null,
				})
				expect(result.document).not.toHaveProperty('text')
				expect(await storage.documents.text(result.document.id)).toBeNull()
				expect(result.document.id).toMatch(/^[0-9A-Za-z]{22}$/)
				expect(await storage.documents.get(scope, result.document.id)).toEqual(result.document)
			})

			it('inserts a new document for every send without a customId', async () => {
				const scope = await newScope()
				const first = await add(scope)
				const second = await add(scope)
				expect(first.id).not.toBe(second.id)
				expect(await listIds(scope)).toEqual([first.id, second.id])
			})

			it('keeps status and chunks when the same content is sent again, and updates the other fields', async () => {
				const scope = await newScope()
				const original = await add(scope, { customId: 'same', metadata: { v: 1 } })
				await index(original.id, [{ content: 'kept chunk', vector: vec(1) }])
				await storage.documents.setExtracted(original.id, original.contentHash, {
					text: 'kept chunk',
					title: 'Found title',
					type: 'text',
				})
				await storage.documents.setProgress(original.id, {
					contentHash: original.contentHash,
					status: 'done',
					stages: [],
				})

				const again = await storage.documents.upsert(
					scope,
					newDocument({ customId: 'same', metadata: { v: 2 }, filepath: '/moved.md' }),
				)
				expect(again).toMatchObject({ created: false, needsProcessing: false })
				expect(again.document).toMatchObject({
					id: original.id,
					status: 'done',
					title: 'Found title',
					metadata: { v: 2 },
					filepath: '/moved.md',
				})
				expect(await storage.documents.text(original.id)).toBe('kept chunk')
				expect(again.document.updatedAt.getTime()).toBeGreaterThanOrEqual(original.updatedAt.getTime())
				expect((await storage.chunks.list(scope, original.id)).map((chunk) => chunk.content)).toEqual(['kept chunk'])
			})

			it('keeps the formation scope: stored, kept by a re-send without one, replaced or cleared by a patch', async () => {
				const scope = await newScope()
				const first = await add(scope, { customId: 'scoped', formationScope: { user: ['a', 'b'], team: 'x' } })
				expect(first.formationScope).toEqual({ user: ['a', 'b'], team: 'x' })
				const resent = await storage.documents.upsert(scope, newDocument({ customId: 'scoped', metadata: { v: 2 } }))
				expect(resent.document.formationScope).toEqual({ user: ['a', 'b'], team: 'x' })
				const rescoped = await storage.documents.upsert(
					scope,
					newDocument({ customId: 'scoped', formationScope: { user: 'c' } }),
				)
				expect(rescoped.document.formationScope).toEqual({ user: 'c' })
				const patched = await storage.documents.update(scope, first.id, { formationScope: { user: 'd' } })
				expect(patched?.document.formationScope).toEqual({ user: 'd' })
				expect(
					(await storage.documents.update(scope, first.id, { metadata: { v: 3 } }))?.document.formationScope,
				).toEqual({ user: 'd' })
				const cleared = await storage.documents.update(scope, first.id, { formationScope: null })
				expect(cleared?.document.formationScope).toBeNull()
				expect((await add(scope)).formationScope).toBeNull()
			})

			it('queues changed content again and keeps the old chunks searchable until the new ones are published', async () => {
				const scope = await newScope()
				const original = await add(scope, { customId: 'changing', content: 'old words', contentHash: 'old' })
				await index(original.id, [{ content: 'old words', vector: vec(1) }])
				await storage.documents.setExtracted(original.id, original.contentHash, {
					text: 'old words',
					title: null,
					type: 'text',
				})
				await storage.documents.setProgress(original.id, {
					contentHash: original.contentHash,
					status: 'done',
					stages: [{ stage: 'indexing', startedAt: '2026-01-01T00:00:00Z', endedAt: null, outcome: 'ok' }],
					error: 'an old warning',
				})

				const changed = await storage.documents.upsert(
					scope,
					newDocument({ customId: 'changing', content: 'new words', contentHash: 'new' }),
				)
				expect(changed).toMatchObject({ created: false, needsProcessing: true })
				expect(changed.document).toMatchObject({
					id: original.id,
					content: 'new words',
					contentHash: 'new',
					status: 'queued',
					stages: [],
					error: null,
					dreamingStatus: 'dreaming',
				})
				// The old content's text is no longer the document's.
				expect(await storage.documents.text(original.id)).toBeNull()
				const searchable = async () =>
					(await storage.search.chunksByText(scope, query({ terms: ['old', 'new'] }))).map((hit) => hit.chunkId)
				const [oldChunk] = await storage.chunks.list(scope, original.id)
				expect(await searchable()).toEqual([oldChunk!.id])

				await storage.chunks.stage(original.id, [textChunk({ content: 'new words' }, 0)])
				expect(await searchable()).toEqual([oldChunk!.id])
				expect(await storage.chunks.publish(original.id)).toBe(1)
				const [newChunk] = await storage.chunks.list(scope, original.id)
				expect(newChunk!.content).toBe('new words')
				expect(await searchable()).toEqual([newChunk!.id])
			})

			it('processes a failed document again when the same content is re-sent', async () => {
				const scope = await newScope()
				const original = await add(scope, { customId: 'flaky' })
				await storage.documents.setProgress(original.id, {
					contentHash: original.contentHash,
					status: 'failed',
					stages: [],
					error: 'extractor crashed',
				})
				const again = await storage.documents.upsert(scope, newDocument({ customId: 'flaky' }))
				expect(again).toMatchObject({ created: false, needsProcessing: true })
				expect(again.document).toMatchObject({ id: original.id, status: 'queued', error: null })
			})

			it('makes one document of concurrent upserts with the same customId', async () => {
				const scope = await newScope()
				const results = await Promise.all(
					Array.from({ length: 8 }, (_, n) =>
						storage.documents.upsert(scope, newDocument({ customId: 'raced', metadata: { n } })),
					),
				)
				expect(results.filter((result) => result.created)).toHaveLength(1)
				expect(new Set(results.map((result) => result.document.id)).size).toBe(1)
				expect(await listIds(scope)).toEqual([results[0]!.document.id])
			})

			it('keeps documents with the same customId in different containers apart', async () => {
				const scope = await newScope()
				const inA = await add(scope, { containerTag: 'a', customId: 'shared' })
				const inB = await add(scope, { containerTag: 'b', customId: 'shared' })
				expect(inA.id).not.toBe(inB.id)
				expect(await listIds(scope)).toHaveLength(2)
			})
		})

		describe('documents.get and getMany', () => {
			it('finds a document by id or by customId', async () => {
				const scope = await newScope()
				const document = await add(scope, { customId: 'by-custom-id' })
				expect(await storage.documents.get(scope, document.id)).toEqual(document)
				expect(await storage.documents.get(scope, 'by-custom-id')).toEqual(document)
				expect(await storage.documents.get(scope, 'unknown')).toBeNull()
			})

			it('picks the most recently updated document when several containers hold the customId', async () => {
				const scope = await newScope()
				const inA = await add(scope, { containerTag: 'a', customId: 'twice' })
				const inB = await add(scope, { containerTag: 'b', customId: 'twice' })
				expect((await storage.documents.get(scope, 'twice'))?.id).toBe(inB.id)
				await storage.documents.update(scope, inA.id, { metadata: { touched: true } })
				expect((await storage.documents.get(scope, 'twice'))?.id).toBe(inA.id)
			})

			it('looks a reference up among the given container tags only', async () => {
				const scope = await newScope()
				const inA = await add(scope, { containerTag: 'a', customId: 'shared' })
				const inB = await add(scope, { containerTag: 'b', customId: 'shared' })
				expect((await storage.documents.get(scope, 'shared'))?.id).toBe(inB.id)
				expect((await storage.documents.get(scope, 'shared', ['a']))?.id).toBe(inA.id)
				expect((await storage.documents.get(scope, 'shared', ['a', 'c']))?.id).toBe(inA.id)
				expect(await storage.documents.get(scope, inB.id, ['a'])).toBeNull()
				expect((await storage.documents.get(scope, inB.id, ['b']))?.id).toBe(inB.id)
				expect(await storage.documents.get(scope, 'shared', ['c'])).toBeNull()
				expect(await storage.documents.get(scope, 'shared', [])).toBeNull()
			})

			it('gets many by id, in the order asked, leaving unknown ids out', async () => {
				const scope = await newScope()
				const first = await add(scope)
				const second = await add(scope)
				const found = await storage.documents.getMany(scope, [second.id, 'unknown', first.id])
				expect(found.map((document) => document.id)).toEqual([second.id, first.id])
				expect(await storage.documents.getMany(scope, [])).toEqual([])
			})

			it('gets the headers of many in the order asked, and without the content where the plugin offers headers', async () => {
				const scope = await newScope()
				const first = await add(scope, { content: 'x'.repeat(10_000), metadata: { kept: 1 }, title: 'First' })
				const second = await add(scope, { customId: 'second', filepath: '/a/b.md' })
				// What search reads, through the plugin's headers or, without them, its getMany.
				const read = await documentHeaders(storage, scope, [second.id, 'unknown', first.id])
				expect(read.map((header) => header.id)).toEqual([second.id, first.id])
				expect(await documentHeaders(storage, scope, [])).toEqual([])
				const headers = storage.documents.headers
				if (!headers) return
				const found = await headers(scope, [second.id, 'unknown', first.id, second.id])
				const { content: _first, ...firstHeader } = first
				const { content: _second, ...secondHeader } = second
				expect(found).toEqual([secondHeader, firstHeader])
				expect(found.some((header) => 'content' in header)).toBe(false)
			})
		})

		describe('documents.update', () => {
			it('patches fields without reprocessing when the content stays', async () => {
				const scope = await newScope()
				const document = await add(scope, { metadata: { v: 1 } })
				const updated = await storage.documents.update(scope, document.id, {
					metadata: { v: 2 },
					filepath: '/a.md',
					taskType: 'superrag',
				})
				expect(updated?.needsProcessing).toBe(false)
				expect(updated?.document).toMatchObject({
					metadata: { v: 2 },
					filepath: '/a.md',
					taskType: 'superrag',
					status: 'queued',
				})
				expect(updated!.document.updatedAt.getTime()).toBeGreaterThanOrEqual(document.updatedAt.getTime())
			})

			it('queues the document again when the content changes', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await storage.documents.setProgress(document.id, {
					contentHash: document.contentHash,
					status: 'done',
					stages: [],
				})
				const updated = await storage.documents.update(scope, document.id, { content: 'other', contentHash: 'hash-2' })
				expect(updated?.needsProcessing).toBe(true)
				expect(updated?.document).toMatchObject({ content: 'other', contentHash: 'hash-2', status: 'queued' })
			})

			it('moves the chunks along with the document to another container', async () => {
				const scope = await newScope()
				const document = await add(scope, { containerTag: 'from' })
				await index(document.id, [{ content: 'moving words', vector: vec(1) }])
				await storage.documents.update(scope, document.id, { containerTag: 'to' })
				const inContainer = async (tag: string) =>
					(await storage.search.chunksByVector(scope, query({ containerTags: [tag] }))).length
				expect(await inContainer('from')).toBe(0)
				expect(await inContainer('to')).toBe(1)
				expect(
					(await storage.search.chunksByText(scope, query({ containerTags: ['to'], terms: ['moving'] }))).length,
				).toBe(1)
			})

			it('refuses a customId that already exists in the target container with 409', async () => {
				const scope = await newScope()
				await add(scope, { containerTag: 'target', customId: 'taken' })
				const mover = await add(scope, { containerTag: 'source', customId: 'taken' })
				const renamer = await add(scope, { containerTag: 'target', customId: 'free' })
				for (const patch of [{ containerTag: 'target' }, { customId: 'taken' }]) {
					const documentId = 'containerTag' in patch ? mover.id : renamer.id
					const error = await storage.documents.update(scope, documentId, patch).catch((caught) => caught)
					expect(error).toBeInstanceOf(ServiceError)
					expect(error).toMatchObject({ status: 409, message: 'customId already exists in that container' })
				}
				expect((await storage.documents.get(scope, mover.id))?.containerTag).toBe('source')
				expect((await storage.documents.get(scope, renamer.id))?.customId).toBe('free')
			})

			it('returns null for an unknown document', async () => {
				const scope = await newScope()
				expect(await storage.documents.update(scope, 'unknown', { metadata: null })).toBeNull()
			})
		})

		describe('documents.delete and deleteMany', () => {
			it('deletes a document with its chunks, by id or by customId', async () => {
				const scope = await newScope()
				const byId = await add(scope)
				const byCustomId = await add(scope, { customId: 'delete-me' })
				for (const document of [byId, byCustomId]) await index(document.id, [{ content: 'gone soon', vector: vec(1) }])
				const chunkIds = [
					...(await storage.chunks.list(scope, byId.id)),
					...(await storage.chunks.list(scope, byCustomId.id)),
				].map((chunk) => chunk.id)

				expect(await storage.documents.delete(scope, byId.id)).toBe(true)
				expect(await storage.documents.delete(scope, 'delete-me')).toBe(true)
				expect(await storage.documents.delete(scope, byId.id)).toBe(false)
				expect(await storage.documents.get(scope, byId.id)).toBeNull()
				expect(await storage.chunks.byIds(scope, chunkIds)).toEqual([])
				expect(await storage.chunks.list(scope, byId.id)).toEqual([])
				expect(await storage.search.chunksByVector(scope, query())).toEqual([])
				expect(await storage.search.chunksByText(scope, query({ terms: ['gone'] }))).toEqual([])
			})

			it('deletes many by ids and customIds, reporting the ones it did not find', async () => {
				const scope = await newScope()
				const first = await add(scope)
				const second = await add(scope, { customId: 'second' })
				const kept = await add(scope)
				const result = await storage.documents.deleteMany(scope, { ids: [first.id, 'second', 'missing-one'] })
				expect(result.deletedIds.sort()).toEqual([first.id, second.id].sort())
				expect(result.missingIds).toEqual(['missing-one'])
				expect(await listIds(scope)).toEqual([kept.id])
			})

			it('deletes many by container tags', async () => {
				const scope = await newScope()
				const inA = await add(scope, { containerTag: 'a' })
				const inB = await add(scope, { containerTag: 'b' })
				const inC = await add(scope, { containerTag: 'c' })
				const result = await storage.documents.deleteMany(scope, { containerTags: ['a', 'b'] })
				expect(result.deletedIds.sort()).toEqual([inA.id, inB.id].sort())
				expect(result.missingIds).toEqual([])
				expect(await listIds(scope)).toEqual([inC.id])
			})

			it('deletes many by exact filepath, or by prefix when it ends with a slash', async () => {
				const scope = await newScope()
				const paths = ['/notes', '/notes/a.md', '/notes/sub/b.md', '/notes-old/c.md', '/a_b/x.md', '/axb/y.md']
				const documents = Object.fromEntries(
					await Promise.all(paths.map(async (filepath) => [filepath, (await add(scope, { filepath })).id] as const)),
				)
				const exact = await storage.documents.deleteMany(scope, { filepath: '/notes' })
				expect(exact.deletedIds).toEqual([documents['/notes']!])
				const prefix = await storage.documents.deleteMany(scope, { filepath: '/notes/' })
				expect(prefix.deletedIds.sort()).toEqual([documents['/notes/a.md']!, documents['/notes/sub/b.md']!].sort())
				// LIKE wildcards in the path are plain characters.
				const literal = await storage.documents.deleteMany(scope, { filepath: '/a_b/' })
				expect(literal.deletedIds).toEqual([documents['/a_b/x.md']!])
				expect((await listIds(scope)).sort()).toEqual([documents['/notes-old/c.md']!, documents['/axb/y.md']!].sort())
			})
		})

		describe('documents.list and processing', () => {
			it('pages, sorts and orders, and counts the total', async () => {
				const scope = await newScope()
				const created: DocumentRecord[] = []
				for (let n = 0; n < 5; n++) created.push(await add(scope, { metadata: { n } }))
				const page = async (page: number, limit: number, sort: 'createdAt' | 'updatedAt', order: 'asc' | 'desc') => {
					const result = await storage.documents.list(scope, { page, limit, sort, order })
					return { ids: result.documents.map((document) => document.id), total: result.total }
				}
				const ids = created.map((document) => document.id)
				expect(await page(1, 2, 'createdAt', 'asc')).toEqual({ ids: ids.slice(0, 2), total: 5 })
				expect(await page(2, 2, 'createdAt', 'asc')).toEqual({ ids: ids.slice(2, 4), total: 5 })
				expect(await page(3, 2, 'createdAt', 'asc')).toEqual({ ids: ids.slice(4), total: 5 })
				expect(await page(4, 2, 'createdAt', 'asc')).toEqual({ ids: [], total: 5 })
				expect(await page(1, 5, 'createdAt', 'desc')).toEqual({ ids: [...ids].reverse(), total: 5 })

				await storage.documents.update(scope, ids[1]!, { metadata: { n: 'touched' } })
				expect((await page(1, 1, 'updatedAt', 'desc')).ids).toEqual([ids[1]!])
				expect((await page(1, 1, 'createdAt', 'desc')).ids).toEqual([ids[4]!])
			})

			it('selects by container tags, filters and filepath', async () => {
				const scope = await newScope()
				const match = await add(scope, { containerTag: 'a', metadata: { kind: 'keep' }, filepath: '/docs/one.md' })
				await add(scope, { containerTag: 'b', metadata: { kind: 'keep' }, filepath: '/docs/two.md' })
				await add(scope, { containerTag: 'a', metadata: { kind: 'drop' }, filepath: '/docs/three.md' })
				await add(scope, { containerTag: 'a', metadata: { kind: 'keep' }, filepath: '/other/four.md' })
				const result = await storage.documents.list(scope, {
					containerTags: ['a'],
					filters: { AND: [condition({ key: 'kind', value: 'keep' })] },
					filepath: '/docs/',
					page: 1,
					limit: 10,
					sort: 'createdAt',
					order: 'desc',
				})
				expect(result.documents.map((document) => document.id)).toEqual([match.id])
				expect(result.total).toBe(1)
			})

			it('lists the documents still in the pipeline', async () => {
				const scope = await newScope()
				const queued = await add(scope)
				const done = await add(scope)
				const failed = await add(scope)
				const embedding = await add(scope)
				await storage.documents.setProgress(done.id, { contentHash: done.contentHash, status: 'done', stages: [] })
				await storage.documents.setProgress(failed.id, {
					contentHash: failed.contentHash,
					status: 'failed',
					stages: [],
					error: 'boom',
				})
				await storage.documents.setProgress(embedding.id, {
					contentHash: embedding.contentHash,
					status: 'embedding',
					stages: [],
				})
				const processing = await storage.documents.processing(scope)
				expect(processing.map((document) => document.id)).toEqual([queued.id, embedding.id])
			})
		})

		describe('filters', () => {
			let scope: Scope
			let ids: Record<'a' | 'b' | 'c' | 'd', string>
			beforeAll(async () => {
				scope = await newScope()
				ids = {
					a: (
						await add(scope, {
							metadata: { color: 'Red', size: 10, tags: ['x', 'y'], note: 'Hello World', flag: true },
						})
					).id,
					b: (await add(scope, { metadata: { color: 'blue', size: '7', tags: ['Y'], note: 'goodbye' } })).id,
					c: (await add(scope, { metadata: { color: 'green', size: 'big', note: 'hello there', tags: 'x' } })).id,
					d: (await add(scope, { metadata: null })).id,
				}
			})
			const matching = async (...conditions: FilterExpression[]) => {
				const found = new Set(await listIds(scope, { AND: conditions }))
				return (Object.keys(ids) as (keyof typeof ids)[]).filter((name) => found.has(ids[name]))
			}

			it('metadata: equality of the text value, or an element of an array', async () => {
				expect(await matching(condition({ key: 'color', value: 'Red' }))).toEqual(['a'])
				expect(await matching(condition({ key: 'color', value: 'red' }))).toEqual([])
				expect(await matching(condition({ key: 'color', value: 'red', ignoreCase: true }))).toEqual(['a'])
				expect(await matching(condition({ key: 'size', value: '10' }))).toEqual(['a'])
				expect(await matching(condition({ key: 'flag', value: 'true' }))).toEqual(['a'])
				expect(await matching(condition({ key: 'tags', value: 'x' }))).toEqual(['a', 'c'])
				expect(await matching(condition({ key: 'tags', value: 'y', ignoreCase: true }))).toEqual(['a', 'b'])
				expect(await matching(condition({ key: 'color', value: 'Red', negate: true }))).toEqual(['b', 'c', 'd'])
			})

			it('numeric: compares numbers and numeric strings, never other values', async () => {
				const size = (numericOperator: FilterCondition['numericOperator'], value: string, negate = false) =>
					matching(condition({ key: 'size', value, filterType: 'numeric', numericOperator, negate }))
				expect(await size('>', '8')).toEqual(['a'])
				expect(await size('<', '8')).toEqual(['b'])
				expect(await size('>=', '7')).toEqual(['a', 'b'])
				expect(await size('<=', '7.0')).toEqual(['b'])
				expect(await size('=', '10')).toEqual(['a'])
				expect(await size('>', '-1e3')).toEqual(['a', 'b'])
				expect(await size('>', '8', true)).toEqual(['b', 'c', 'd'])
				expect(await size('>', 'not a number')).toEqual([])
			})

			it('array_contains: an element of a stored array', async () => {
				const tags = (value: string, ignoreCase = false, negate = false) =>
					matching(condition({ key: 'tags', value, filterType: 'array_contains', ignoreCase, negate }))
				expect(await tags('x')).toEqual(['a'])
				expect(await tags('y')).toEqual(['a'])
				expect(await tags('y', true)).toEqual(['a', 'b'])
				expect(await tags('x', false, true)).toEqual(['b', 'c', 'd'])
			})

			it('string_contains: a substring of the text value', async () => {
				const note = (value: string, ignoreCase = false, negate = false) =>
					matching(condition({ key: 'note', value, filterType: 'string_contains', ignoreCase, negate }))
				expect(await note('llo')).toEqual(['a', 'c'])
				expect(await note('hello')).toEqual(['c'])
				expect(await note('HELLO', true)).toEqual(['a', 'c'])
				expect(await note('%')).toEqual([])
				expect(await note('hello', false, true)).toEqual(['a', 'b', 'd'])
			})

			it('nests AND and OR groups', async () => {
				const redOrBlue = {
					OR: [condition({ key: 'color', value: 'Red' }), condition({ key: 'color', value: 'blue' })],
				}
				expect(await matching(redOrBlue)).toEqual(['a', 'b'])
				expect(
					await matching(
						redOrBlue,
						condition({ key: 'size', value: '8', filterType: 'numeric', numericOperator: '<' }),
					),
				).toEqual(['b'])
				expect(
					await matching({
						OR: [
							{
								AND: [
									condition({ key: 'note', value: 'hello', filterType: 'string_contains' }),
									condition({ key: 'tags', value: 'x' }),
								],
							},
							{
								AND: [condition({ key: 'color', value: 'blue' }), { OR: [condition({ key: 'flag', value: 'true' })] }],
							},
						],
					}),
				).toEqual(['c'])
			})

			it('treats keys and values as data, never as SQL', async () => {
				const hostile = "x'); DROP TABLE documents; --"
				expect(await matching(condition({ key: hostile, value: hostile }))).toEqual([])
				expect(
					await matching(condition({ key: hostile, value: '1', filterType: 'numeric', numericOperator: '>' })),
				).toEqual([])
				expect(await listIds(scope)).toHaveLength(4)
			})
		})

		describe('chunks', () => {
			it('keeps staged chunks out of reads and searches until they are published', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await storage.chunks.stage(document.id, [
					{ position: 0, content: 'staged alpha', type: 'text', metadata: { page: 1 }, embedding: vec(1) },
					{ position: 1, content: 'staged beta', type: 'image', metadata: null, embedding: null },
				])
				const staged = await storage.chunks.staged(document.id)
				expect(
					staged.map((chunk) => [chunk.position, chunk.content, chunk.type, chunk.metadata, chunk.embedded]),
				).toEqual([
					[0, 'staged alpha', 'text', { page: 1 }, true],
					[1, 'staged beta', 'image', null, false],
				])

				expect(await storage.chunks.list(scope, document.id)).toEqual([])
				expect(await storage.chunks.byIds(scope, [staged[0]!.id])).toEqual([])
				expect(await storage.search.chunksByVector(scope, query())).toEqual([])
				expect(await storage.search.chunksByText(scope, query({ terms: ['staged'] }))).toEqual([])

				expect(await storage.chunks.publish(document.id)).toBe(2)
				expect(await storage.chunks.staged(document.id)).toEqual([])
				expect((await storage.chunks.list(scope, document.id)).map((chunk) => chunk.id)).toEqual(
					staged.map((c) => c.id),
				)
				expect((await storage.search.chunksByVector(scope, query())).map((hit) => hit.chunkId)).toEqual([staged[0]!.id])
				expect(await storage.search.chunksByText(scope, query({ terms: ['staged'] }))).toHaveLength(2)
			})

			it('fills a search with published chunks when staged ones would rank first', async () => {
				const scope = await newScope()
				const published = await add(scope)
				await index(published.id, [
					{ content: 'harbour lighthouse keeper', vector: vec(1, 1) },
					{ content: 'harbour lighthouse', vector: vec(1, 2) },
				])
				// Another document being processed again: its new chunks match better on both sides, and it has none published.
				const processing = await add(scope)
				await storage.chunks.stage(processing.id, [
					textChunk({ content: 'harbour lighthouse keeper harbour lighthouse', vector: vec(1) }, 0),
					textChunk({ content: 'lighthouse keeper harbour lighthouse keeper', vector: vec(1, 0.1) }, 1),
				])
				const terms = ['harbour', 'lighthouse', 'keeper']
				const byVector = await storage.search.chunksByVector(scope, query({ limit: 2 }))
				const byText = await storage.search.chunksByText(scope, query({ terms, limit: 2 }))
				for (const hits of [byVector, byText]) {
					expect(hits.map((hit) => hit.documentId)).toEqual([published.id, published.id])
				}
				expect(
					(
						await storage.chunks.byIds(
							scope,
							[...byVector, ...byText].map((hit) => hit.chunkId),
						)
					).length,
				).toBe(2)
			})

			it('stages in parts, replacing what was staged at the same positions; clearing drops all of it', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await index(document.id, [{ content: 'version one' }])
				const stagedContents = async () => (await storage.chunks.staged(document.id)).map((chunk) => chunk.content)
				await storage.chunks.stage(document.id, [textChunk({ content: 'abandoned' }, 0)])
				await storage.chunks.stage(document.id, [textChunk({ content: 'abandoned too' }, 2)])
				await storage.chunks.clearStaged(document.id)
				expect(await stagedContents()).toEqual([])
				// A run that stopped after its first part, then its retry staging everything again.
				await storage.chunks.stage(document.id, [textChunk({ content: 'version two, part one' }, 0)])
				await storage.chunks.stage(document.id, [
					textChunk({ content: 'version two, part one' }, 0),
					textChunk({ content: 'version two, part two' }, 1),
				])
				expect(await stagedContents()).toEqual(['version two, part one', 'version two, part two'])
				expect((await storage.chunks.list(scope, document.id)).map((chunk) => chunk.content)).toEqual(['version one'])
				expect(await storage.chunks.publish(document.id)).toBe(2)
				expect((await storage.chunks.list(scope, document.id)).map((chunk) => chunk.content)).toEqual([
					'version two, part one',
					'version two, part two',
				])
			})

			it('replaces more published chunks than one delete takes: readers see all the old ones, then all the new', async () => {
				const scope = await newScope()
				const document = await add(scope)
				const contents = (word: string, count: number) => Array.from({ length: count }, (_, i) => `${word} ${i}`)
				await index(
					document.id,
					contents('original', 1_200).map((content) => ({ content })),
				)
				const listed = async () => (await storage.chunks.list(scope, document.id)).map((chunk) => chunk.content)
				const next = contents('replacement', 900)
				for (let start = 0; start < next.length; start += 100) {
					await storage.chunks.stage(
						document.id,
						next.slice(start, start + 100).map((content, i) => textChunk({ content }, start + i)),
					)
					expect(await listed()).toEqual(contents('original', 1_200))
				}
				expect(await storage.search.chunksByText(scope, query({ terms: ['replacement'] }))).toEqual([])
				expect(await storage.chunks.publish(document.id)).toBe(900)
				expect(await listed()).toEqual(next)
				expect(await storage.chunks.staged(document.id)).toEqual([])
				expect(await storage.search.chunksByText(scope, query({ terms: ['original'] }))).toEqual([])
				expect(await storage.search.chunksByText(scope, query({ terms: ['replacement'] }))).toHaveLength(10)
				// Published again with nothing staged (a resumed run): nothing changes.
				expect(await storage.chunks.publish(document.id)).toBe(0)
				expect(await listed()).toEqual(next)
			})

			it('reads ready chunks by id and at positions', async () => {
				const scope = await newScope()
				const first = await add(scope)
				const second = await add(scope)
				await index(
					first.id,
					['f0', 'f1', 'f2'].map((content) => ({ content })),
				)
				await index(
					second.id,
					['s0', 's1'].map((content) => ({ content })),
				)
				const chunks = await storage.chunks.atPositions(scope, [
					{ documentId: first.id, positions: [0, 2, 9] },
					{ documentId: second.id, positions: [1] },
				])
				expect(chunks.map((chunk) => chunk.content).sort()).toEqual(['f0', 'f2', 's1'])
				const byIds = await storage.chunks.byIds(scope, [chunks[0]!.id, 'unknown'])
				expect(byIds).toEqual([chunks[0]!])
				expect(await storage.chunks.atPositions(scope, [])).toEqual([])
			})
		})

		describe('search', () => {
			it('ranks chunks by cosine similarity', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await index(document.id, [
					{ content: 'opposite', vector: vec(-1) },
					{ content: 'same', vector: vec(1) },
					{ content: 'diagonal', vector: vec(1, 1) },
					{ content: 'orthogonal', vector: vec(0, 1) },
					{ content: 'not embedded' },
				])
				const byContent = new Map(
					(await storage.chunks.list(scope, document.id)).map((chunk) => [chunk.id, chunk.content]),
				)
				const hits = await storage.search.chunksByVector(scope, query({ vector: vec(1) }))
				expect(hits.map((hit) => byContent.get(hit.chunkId))).toEqual(['same', 'diagonal', 'orthogonal', 'opposite'])
				expect(hits.map((hit) => hit.similarity)).toEqual([
					expect.closeTo(1, 5),
					expect.closeTo(Math.SQRT1_2, 5),
					expect.closeTo(0, 5),
					expect.closeTo(-1, 5),
				])
				expect(hits.every((hit) => hit.documentId === document.id)).toBe(true)
				expect(await storage.search.chunksByVector(scope, query({ limit: 2 }))).toEqual(hits.slice(0, 2))
			})

			it('searches only the given containers, document, filepath and metadata', async () => {
				const scope = await newScope()
				const inA = await add(scope, { containerTag: 'a', filepath: '/x/1.md', metadata: { lang: 'en' } })
				const inB = await add(scope, { containerTag: 'b', filepath: '/y/2.md', metadata: { lang: 'de' } })
				await index(inA.id, [{ content: 'shared words', vector: vec(1) }])
				await index(inB.id, [{ content: 'shared words', vector: vec(1) }])
				const documents = async (overrides: Partial<ChunkSearchQuery>) => {
					const vector = await storage.search.chunksByVector(scope, query(overrides))
					const text = await storage.search.chunksByText(scope, query({ ...overrides, terms: ['shared'] }))
					expect(text.map((hit) => hit.documentId).sort()).toEqual(vector.map((hit) => hit.documentId).sort())
					return vector.map((hit) => hit.documentId).sort()
				}
				expect(await documents({})).toEqual([inA.id, inB.id].sort())
				expect(await documents({ containerTags: ['a'] })).toEqual([inA.id])
				expect(await documents({ containerTags: ['a', 'b'] })).toEqual([inA.id, inB.id].sort())
				expect(await documents({ containerTags: ['c'] })).toEqual([])
				expect(await documents({ documentId: inB.id })).toEqual([inB.id])
				expect(await documents({ filepath: '/y/' })).toEqual([inB.id])
				expect(await documents({ filepath: '/x/1.md' })).toEqual([inA.id])
				expect(await documents({ filters: { AND: [condition({ key: 'lang', value: 'de' })] } })).toEqual([inB.id])
			})

			it('still finds `limit` hits when the filter keeps a small part of the store', async () => {
				const scope = await newScope()
				let seed = 42
				const random = () => {
					seed = (seed * 16807) % 2147483647
					return seed / 2147483647 - 0.5
				}
				let rare = ''
				for (let n = 0; n < 40; n++) {
					const document = await add(scope, {
						containerTag: n === 7 ? 'small' : 'big',
						metadata: { group: n === 7 ? 'rare' : 'common' },
					})
					if (n === 7) rare = document.id
					await index(
						document.id,
						Array.from({ length: 25 }, (_, position) => ({
							content: `chunk ${position}`,
							vector: vec(...Array.from({ length: 8 }, random)),
						})),
					)
				}
				const rareFilter = { AND: [condition({ key: 'group', value: 'rare' })] }
				for (const narrowed of [{ filters: rareFilter }, { containerTags: ['small'] }]) {
					const hits = await storage.search.chunksByVector(scope, query({ ...narrowed, limit: 20 }))
					expect(hits).toHaveLength(20)
					expect(hits.every((hit) => hit.documentId === rare)).toBe(true)
					const similarities = hits.map((hit) => hit.similarity)
					expect(similarities).toEqual([...similarities].sort((x, y) => y - x))
				}
			})

			it('ranks chunks by full-text relevance for any of the words', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await index(document.id, [
					{ content: 'The quick brown fox jumps over the lazy dog' },
					{ content: 'A fox, another fox and a third fox were running' },
					{ content: 'Nothing relevant here at all' },
					{ content: 'The dog runs' },
				])
				const byContent = new Map(
					(await storage.chunks.list(scope, document.id)).map((chunk) => [chunk.id, chunk.content]),
				)
				const hits = await storage.search.chunksByText(scope, query({ terms: ['fox'] }))
				expect(hits.map((hit) => byContent.get(hit.chunkId))).toEqual([
					'A fox, another fox and a third fox were running',
					'The quick brown fox jumps over the lazy dog',
				])
				expect(hits[0]!.rank).toBeGreaterThan(hits[1]!.rank)
				expect(hits.every((hit) => hit.rank > 0 && hit.rank <= 1)).toBe(true)

				// Stemmed: "running" finds "runs"; any word is enough.
				const either = await storage.search.chunksByText(scope, query({ terms: ['running', 'lazy'] }))
				expect(either.map((hit) => byContent.get(hit.chunkId)).sort()).toEqual([
					'A fox, another fox and a third fox were running',
					'The dog runs',
					'The quick brown fox jumps over the lazy dog',
				])
				expect(await storage.search.chunksByText(scope, query({ terms: ['fox'], limit: 1 }))).toEqual(hits.slice(0, 1))
			})

			it('ranks the chunk holding all the words first, even behind many chunks holding some of them', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await index(document.id, [
					...Array.from({ length: 60 }, (_, n) => ({ content: `apple ${n} apple` })),
					...Array.from({ length: 60 }, (_, n) => ({ content: `banana ${n} banana` })),
					{ content: 'apple banana cherry' },
				])
				const hits = await storage.search.chunksByText(scope, query({ terms: ['apple', 'banana', 'cherry'], limit: 5 }))
				expect(hits).toHaveLength(5)
				const [first] = await storage.chunks.byIds(scope, [hits[0]!.chunkId])
				expect(first!.content).toBe('apple banana cherry')
				expect(hits[0]!.coverage).toBe(1)
				const ranks = hits.map((hit) => hit.rank)
				expect(ranks).toEqual([...ranks].sort((x, y) => y - x))
			})

			it('ranks every match of a small scope, the best one first wherever it is stored', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await index(document.id, [
					...Array.from({ length: 150 }, (_, n) => ({ content: `an apple numbered ${n}` })),
					{ content: 'apple pie, apple tart and apple crumble' },
				])
				for (const limit of [1, 5, 10]) {
					const hits = await storage.search.chunksByText(scope, query({ terms: ['apple'], limit }))
					const [first] = await storage.chunks.byIds(scope, [hits[0]!.chunkId])
					expect(first!.content).toBe('apple pie, apple tart and apple crumble')
				}
			})

			it('finds the chunk of a rare word among very common ones, and never returns more than the limit', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await index(document.id, [
					...['apple', 'banana', 'cherry'].flatMap((word) =>
						Array.from({ length: 60 }, (_, n) => ({ content: `${word} number ${n}` })),
					),
					{ content: 'zebra stripes on a zebra' },
				])
				const terms = ['apple', 'banana', 'cherry', 'zebra']
				for (const limit of [1, 5, 10, 100]) {
					const hits = await storage.search.chunksByText(scope, query({ terms, limit }))
					expect(hits).toHaveLength(limit)
					expect(new Set(hits.map((hit) => hit.chunkId)).size).toBe(limit)
					const [first] = await storage.chunks.byIds(scope, [hits[0]!.chunkId])
					expect(first!.content).toBe('zebra stripes on a zebra')
				}
				// Every matching chunk is found once the limit allows it.
				expect(await storage.search.chunksByText(scope, query({ terms, limit: 500 }))).toHaveLength(181)
			})

			it('builds the full-text query safely from any words, and finds nothing without words', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await index(document.id, [{ content: "the fox's den (brown)" }])
				for (const terms of [["fox's"], ['(brown)'], ['a|b', "!'&:*", 'den\\'], ["'); DROP TABLE chunks; --"]]) {
					await storage.search.chunksByText(scope, query({ terms }))
				}
				expect(await storage.search.chunksByText(scope, query({ terms: ["fox's"] }))).toHaveLength(1)
				expect(await storage.search.chunksByText(scope, query({ terms: [] }))).toEqual([])
				expect(await storage.search.chunksByText(scope, query({ terms: ['!!', '&|'] }))).toEqual([])
				expect(await storage.search.chunksByText(scope, query({ terms: ['the'] }))).toEqual([])
				expect(await storage.chunks.list(scope, document.id)).toHaveLength(1)
			})
		})

		describe('document files', () => {
			const file = (key: string) => ({ key, name: `${key}.pdf`, mimeType: 'application/pdf', size: 1234 })

			it('stores the file record of an uploaded document, and none for text', async () => {
				const scope = await newScope()
				const uploaded = await add(scope, { file: file('org/a1'), content: '' })
				expect(uploaded.file).toEqual(file('org/a1'))
				expect((await storage.documents.get(scope, uploaded.id))!.file).toEqual(file('org/a1'))
				expect((await storage.documents.byId(uploaded.id))!.file).toEqual(file('org/a1'))
				expect((await add(scope)).file).toBeNull()
			})

			it('reports the file a re-send replaced, and keeps it when the re-send names none', async () => {
				const scope = await newScope()
				const first = await storage.documents.upsert(scope, newDocument({ customId: 'f', file: file('org/v1') }))
				expect(first.replacedFile ?? null).toBeNull()
				const second = await storage.documents.upsert(scope, newDocument({ customId: 'f', file: file('org/v2') }))
				expect(second.document.id).toBe(first.document.id)
				expect(second.document.file).toEqual(file('org/v2'))
				expect(second.replacedFile).toEqual(file('org/v1'))
				const same = await storage.documents.upsert(scope, newDocument({ customId: 'f', file: file('org/v2') }))
				expect(same.replacedFile ?? null).toBeNull()
				const connector = await storage.documents.upsert(scope, newDocument({ customId: 'f' }))
				expect(connector.document.file).toEqual(file('org/v2'))
				const text = await storage.documents.upsert(scope, newDocument({ customId: 'f', file: null }))
				expect(text.document.file).toBeNull()
				expect(text.replacedFile).toEqual(file('org/v2'))
			})

			it('answers a retried add without customId with the document it made, within the retry window', async () => {
				const scope = await newScope()
				const sent = newDocument({ contentHash: 'retry-1', metadata: { a: 1 }, retryWindowSeconds: 600 })
				const results = await Promise.all([1, 2, 3].map(() => storage.documents.upsert(scope, sent)))
				expect(new Set(results.map((result) => result.document.id)).size).toBe(1)
				expect(results.filter((result) => result.created)).toHaveLength(1)
				const other = await storage.documents.upsert(scope, { ...sent, metadata: { a: 2 } })
				expect(other.created).toBe(true)
				const elsewhere = await storage.documents.upsert(scope, { ...sent, containerTag: 'other_tag' })
				expect(elsewhere.created).toBe(true)
				const plain = await storage.documents.upsert(scope, { ...sent, retryWindowSeconds: undefined })
				expect(plain.created).toBe(true)
			})

			it('re-sends to a document named by id, which keeps its id and caller id (none), in its container only', async () => {
				const scope = await newScope()
				const first = await add(scope, { file: file('org/n1') })
				const named = newDocument({ file: file('org/n2'), documentId: first.id })
				const second = await storage.documents.upsert(scope, named)
				expect(second.document.id).toBe(first.id)
				expect(second.document.customId).toBeNull()
				expect(second.document.file).toEqual(file('org/n2'))
				expect(second.replacedFile).toEqual(file('org/n1'))
				const elsewhere = newDocument({ containerTag: 'other_tag', documentId: first.id })
				await expect(storage.documents.upsert(scope, elsewhere)).rejects.toMatchObject({ status: 404 })
			})

			it('drops the file record on an update that says so', async () => {
				const scope = await newScope()
				const document = await add(scope, { file: file('org/u1') })
				const kept = await storage.documents.update(scope, document.id, { metadata: { a: 1 } })
				expect(kept!.document.file).toEqual(file('org/u1'))
				const dropped = await storage.documents.update(scope, document.id, {
					file: null,
					content: 'x',
					contentHash: 'x',
				})
				expect(dropped!.document.file).toBeNull()
			})

			it('returns the file keys of the documents it deletes in bulk', async () => {
				const scope = await newScope()
				const a = await add(scope, { containerTag: 'files-a', file: file('org/d1') })
				await add(scope, { containerTag: 'files-a' })
				await add(scope, { containerTag: 'files-b', file: file('org/d2') })
				const byTag = await storage.documents.deleteMany(scope, { containerTags: ['files-b'] })
				expect(byTag.deletedFileKeys).toEqual(['org/d2'])
				const byId = await storage.documents.deleteMany(scope, { ids: [a.id, 'missing'] })
				expect(byId).toMatchObject({ deletedIds: [a.id], missingIds: ['missing'], deletedFileKeys: ['org/d1'] })
			})
		})

		describe('tenancy', () => {
			it('keeps another org out of a document, its chunks and its searches, even with the ids', async () => {
				const owner = await newScope()
				const other = await newScope()
				const document = await add(owner, { containerTag: 'shared-tag', customId: 'private', filepath: '/p.md' })
				await index(document.id, [{ content: 'secret owl', vector: vec(1) }])
				const [chunk] = await storage.chunks.list(owner, document.id)

				expect(await storage.documents.get(other, document.id)).toBeNull()
				expect(await storage.documents.get(other, 'private')).toBeNull()
				expect(await storage.documents.getMany(other, [document.id])).toEqual([])
				expect((await storage.documents.headers?.(other, [document.id])) ?? []).toEqual([])
				expect(await storage.documents.update(other, document.id, { metadata: { stolen: true } })).toBeNull()
				expect(await storage.documents.delete(other, document.id)).toBe(false)
				expect(await storage.documents.delete(other, 'private')).toBe(false)
				expect(await storage.documents.deleteMany(other, { ids: [document.id, 'private'] })).toMatchObject({
					deletedIds: [],
					missingIds: [document.id, 'private'],
				})
				expect(await storage.documents.deleteMany(other, { containerTags: ['shared-tag'] })).toMatchObject({
					deletedIds: [],
					missingIds: [],
				})
				expect((await storage.documents.deleteMany(other, { filepath: '/p.md' })).deletedIds).toEqual([])
				const listed = await storage.documents.list(other, { page: 1, limit: 10, sort: 'createdAt', order: 'desc' })
				expect(listed).toEqual({ documents: [], total: 0 })
				expect(await storage.documents.processing(other)).toEqual([])
				expect(await storage.chunks.list(other, document.id)).toEqual([])
				expect(await storage.chunks.byIds(other, [chunk!.id])).toEqual([])
				expect(await storage.chunks.atPositions(other, [{ documentId: document.id, positions: [0] }])).toEqual([])
				const everywhere = query({ terms: ['secret', 'owl'], documentId: document.id })
				expect(await storage.search.chunksByVector(other, everywhere)).toEqual([])
				expect(await storage.search.chunksByText(other, everywhere)).toEqual([])
				expect(await storage.search.chunksByVector(other, { ...everywhere, containerTags: ['shared-tag'] })).toEqual([])

				expect(await storage.documents.get(owner, document.id)).toEqual(document)
				expect(await storage.search.chunksByText(owner, everywhere)).toHaveLength(1)
			})

			it('gives each org its own customIds', async () => {
				const first = await newScope()
				const second = await newScope()
				const mine = await add(first, { customId: 'same-name' })
				const theirs = await add(second, { customId: 'same-name' })
				expect(mine.id).not.toBe(theirs.id)
				expect((await storage.documents.get(first, 'same-name'))?.id).toBe(mine.id)
				expect((await storage.documents.get(second, 'same-name'))?.id).toBe(theirs.id)
			})
		})

		describe('pipeline side', () => {
			it('returns the extracted text as it stored it', async () => {
				const document = await add(await newScope())
				const stored = await storage.documents.setExtracted(document.id, document.contentHash, {
					text: 'nul\u0000 dropped',
					title: null,
					type: 'text',
				})
				expect(stored).toBe('nul dropped')
				expect(await storage.documents.text(document.id)).toBe(stored)
			})

			it('stores the summary with the extracted text, and clears it when extracted again without one', async () => {
				const scope = await newScope()
				const document = await add(scope)
				const extracted = { text: 'Bun runs the tests.', title: null, type: 'text' as const }
				await storage.documents.setExtracted(document.id, document.contentHash, {
					...extracted,
					summary: 'Bun runs the tests.',
				})
				expect((await storage.documents.get(scope, document.id))?.summary).toBe('Bun runs the tests.')
				await storage.documents.setExtracted(document.id, document.contentHash, extracted)
				expect((await storage.documents.get(scope, document.id))?.summary).toBeNull()
			})

			it('keeps a long text whole, replaces it when extracted again, and ignores a stale extraction', async () => {
				const document = await add(await newScope())
				// Over a megabyte, with characters outside the BMP (surrogate pairs) throughout: stored in many parts.
				const long = Array.from({ length: 60_000 }, (_, i) => `line ${i} 🦉 ünïcødé\n`).join('')
				expect(long.length).toBeGreaterThan(1_200_000)
				expect(
					await storage.documents.setExtracted(document.id, document.contentHash, {
						text: long,
						title: null,
						type: 'text',
					}),
				).toBe(long)
				expect(await storage.documents.text(document.id)).toBe(long)
				await storage.documents.setExtracted(document.id, document.contentHash, {
					text: 'short',
					title: null,
					type: 'text',
				})
				expect(await storage.documents.text(document.id)).toBe('short')
				await storage.documents.setExtracted(document.id, 'an-older-content-hash', {
					text: 'stale',
					title: 'Stale title',
					type: 'pdf',
				})
				expect(await storage.documents.text(document.id)).toBe('short')
				expect(await storage.documents.byId(document.id)).toMatchObject({ title: null, type: 'text' })
				await storage.documents.setExtracted(document.id, document.contentHash, { text: '', title: null, type: 'text' })
				expect(await storage.documents.text(document.id)).toBe('')
				expect(await storage.documents.text('unknown')).toBeNull()
			})

			it('records progress, extracted text and reports unfinished documents', async () => {
				const scope = await newScope()
				const document = await add(scope, { title: 'Given title' })
				const stages = [
					{
						stage: 'extracting' as const,
						startedAt: '2026-01-01T00:00:00Z',
						endedAt: null,
						outcome: 'running' as const,
					},
				]
				await storage.documents.setProgress(document.id, {
					contentHash: document.contentHash,
					status: 'extracting',
					stages,
					error: 'first try failed',
				})
				await storage.documents.setProgress(document.id, {
					contentHash: document.contentHash,
					status: 'chunking',
					stages,
				})
				await storage.documents.setExtracted(document.id, document.contentHash, {
					text: 'plain text',
					title: 'Extracted title',
					type: 'webpage',
				})
				expect(await storage.documents.byId(document.id)).toMatchObject({
					status: 'chunking',
					stages,
					error: 'first try failed',
					title: 'Given title',
					type: 'webpage',
				})
				expect(await storage.documents.text(document.id)).toBe('plain text')
				expect(await storage.documents.byId('unknown')).toBeNull()

				const unfinished = await storage.documents.unfinished(10_000)
				expect(unfinished).toContainEqual({ id: document.id, orgId: scope.orgId })
				await storage.documents.setProgress(document.id, {
					contentHash: document.contentHash,
					status: 'done',
					stages,
					error: null,
				})
				expect(await storage.documents.unfinished(10_000)).not.toContainEqual({ id: document.id, orgId: scope.orgId })
				expect(await storage.documents.byId(document.id)).toMatchObject({ error: null, dreamingStatus: 'dreaming' })
				await storage.documents.setProgress(document.id, {
					contentHash: document.contentHash,
					status: 'done',
					stages,
					dreamingStatus: 'done',
				})
				expect((await storage.documents.byId(document.id))?.dreamingStatus).toBe('done')
			})

			it('refuses progress from a worker whose content is stale or whose document is gone', async () => {
				const scope = await newScope()
				const document = await add(scope)
				const stale = { contentHash: 'not-the-current-hash', status: 'done' as const, stages: [] }
				expect(await storage.documents.setProgress(document.id, stale)).toBe(false)
				expect((await storage.documents.byId(document.id))?.status).toBe('queued')
				const current = { contentHash: document.contentHash, status: 'chunking' as const, stages: [] }
				expect(await storage.documents.setProgress(document.id, current)).toBe(true)
				await storage.documents.delete(scope, document.id)
				expect(await storage.documents.setProgress(document.id, current)).toBe(false)
			})

			it('keeps the extracted title when the document has none', async () => {
				const scope = await newScope()
				const document = await add(scope)
				await storage.documents.setExtracted(document.id, document.contentHash, {
					text: 'text',
					title: 'Extracted title',
					type: 'pdf',
				})
				expect(await storage.documents.byId(document.id)).toMatchObject({ title: 'Extracted title', type: 'pdf' })
			})
		})

		describe('meta', () => {
			it('stores JSON values by key', async () => {
				const key = `setting-${crypto.randomUUID()}`
				expect(await storage.meta.get(key)).toBeNull()
				await storage.meta.set(key, { buckets: ['a'], enabled: true })
				expect(await storage.meta.get<{ buckets: string[]; enabled: boolean }>(key)).toEqual({
					buckets: ['a'],
					enabled: true,
				})
				await storage.meta.set(key, 'replaced')
				expect(await storage.meta.get(key)).toBe('replaced')
			})
		})

		memoryStorageContract(() => storage)

		describe('restarts', () => {
			it('keeps its data across close and reopen', async () => {
				const scope = await newScope()
				const document = await add(scope, { customId: 'durable', metadata: { kept: true } })
				await index(document.id, [{ content: 'durable words', vector: vec(1) }])
				await storage.close?.()

				storage = await opened.reopen()
				await storage.init?.(context())
				expect(await storage.documents.get(scope, 'durable')).toEqual(document)
				expect((await storage.search.chunksByVector(scope, query())).map((hit) => hit.documentId)).toEqual([
					document.id,
				])
				expect(await storage.search.chunksByText(scope, query({ terms: ['durable'] }))).toHaveLength(1)
			})

			it('refuses to start on a store of another vector space', async () => {
				await storage.close?.()
				for (const configured of [
					{ id: 'test:other-16d', dimensions: 16 },
					{ id: 'test:other-8d', dimensions: 8 },
				]) {
					const other = await opened.reopen()
					const error = await Promise.resolve(other.init?.(context(configured))).catch((caught) => caught)
					await other.close?.()
					expect(error).toBeInstanceOf(StartupError)
					expect(error.message).toBe(
						`This store holds vectors from embedder test:handcrafted-8d (8 dimensions) but the configured embedder is ${configured.id} (${configured.dimensions} dimensions). Use the original embedder, or point MEMORY_DATA_DIR / DATABASE_URL at a new store.`,
					)
				}

				storage = await opened.reopen()
				await storage.init?.(context())
				expect(await storage.orgs.count()).toBeGreaterThan(0)
			})
		})
	})
}
