import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Metadata } from '../../core/domain/types.ts'
import { byScope, inScope, scopedContext } from '../../core/memory/formation-scope.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { linkableMemory } from '../../testkit/linkable-memory.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { upload } from '../../testkit/upload.ts'

type Entry = { memory: string; version: number; isLatest: boolean }

describe('formation scope matching', () => {
	it('needs every key; a scalar matches an equal value, an array any of its values', () => {
		expect(inScope({ user: 'a' }, { user: 'a', kind: 'chat' })).toBe(true)
		expect(inScope({ user: 'a', kind: 'mail' }, { user: 'a', kind: 'chat' })).toBe(false)
		expect(inScope({ user: 'a' }, { kind: 'chat' })).toBe(false)
		expect(inScope({ user: 'a' }, null)).toBe(false)
		expect(inScope({ user: ['b', 'a'] }, { user: 'a' })).toBe(true)
		expect(inScope({ user: ['b', 'c'] }, { user: 'a' })).toBe(false)
		expect(inScope({ year: 2024 }, { year: '2024' })).toBe(false)
		expect(inScope({ tags: 'x' }, { tags: ['y', 'x'] })).toBe(true)
	})

	it('keeps only memories in scope, and each statement its nearest of them', () => {
		const memory = (id: string, metadata: Record<string, unknown> | null) => linkableMemory(id, id, { metadata })
		const context = {
			memories: [memory('m1', { user: 'b' }), memory('m2', { user: 'a' }), memory('m3', { user: 'a' })],
			nearest: [
				[
					{ memoryId: 'm1', similarity: 0.9 },
					{ memoryId: 'm2', similarity: 0.8 },
					{ memoryId: 'm3', similarity: 0.7 },
				],
			],
		}
		const scoped = scopedContext(context, { user: 'a' }, 1)
		expect(scoped.memories.map((m) => m.id)).toEqual(['m2', 'm3'])
		expect(scoped.nearest).toEqual([[{ memoryId: 'm2', similarity: 0.8 }]])
		expect(scopedContext(context, null, 1)).toBe(context)
	})

	it('splits a batch by scope, equal scopes together whatever their order, each part in batch order', () => {
		const items: { id: number; scope: Metadata | null }[] = [
			{ id: 1, scope: { user: 'a', team: ['x', 'y'] } },
			{ id: 2, scope: null },
			{ id: 3, scope: { team: ['y', 'x'], user: 'a' } },
			{ id: 4, scope: { user: 'b' } },
			{ id: 5, scope: null },
		]
		const parts = byScope(items, (item) => item.scope)
		expect(parts.map((part) => part.items.map((item) => item.id))).toEqual([[1, 3], [2, 5], [4]])
	})
})

/**
 * A document's formation scope (v5 `group`, v3 `filterByMetadata`) limits the memories its formation links to:
 * contradicting facts of two scopes in one container both stay latest, while the same facts unscoped (or in one
 * scope) make an update chain.
 */
describeEachDriver('formation scope (v5 group, v3 filterByMetadata)', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver, { env: { MEMORY_DREAMING_QUIET_SECONDS: '1' } })
	}, 120_000)
	afterAll(() => t.stop())

	const BOSTON = 'Alex lives in Boston.'
	const SEATTLE = 'Alex moved to Seattle.'
	/** The memories the rules extractor forms from them. */
	const FORMED = ['Alex lives in Boston', 'Alex moved to Seattle']

	async function addV5(namespace: string, content: string, extra: Record<string, unknown> = {}) {
		const added = await t.json('POST', `/ns/${namespace}/document`, { content, dreaming: 'instant', ...extra })
		expect(added.status).toBe(200)
		const done = await t.waitForStatus(encodeURIComponent(added.body.id))
		expect(done.status).toBe('done')
		return done
	}
	async function addV3(containerTag: string, content: string, extra: Record<string, unknown> = {}) {
		const added = await t.json('POST', '/v3/documents', { content, containerTag, dreaming: 'instant', ...extra })
		expect(added.status).toBe(200)
		const done = await t.waitForStatus(added.body.id)
		expect(done.status).toBe('done')
		return done
	}
	const latest = async (containerTag: string): Promise<Entry[]> => {
		const listed = await t.json('POST', '/v4/memories/list', {
			containerTags: [containerTag],
			limit: 100,
			order: 'asc',
		})
		expect(listed.status).toBe(200)
		return listed.body.memoryEntries
	}
	const isolated = (entries: Entry[]) => {
		expect(entries.map((entry) => entry.memory).sort()).toEqual(FORMED)
		for (const entry of entries) expect(entry).toMatchObject({ version: 1, isLatest: true })
	}
	const updated = (entries: Entry[]) => {
		expect(entries).toEqual([expect.objectContaining({ memory: FORMED[1], version: 2, isLatest: true })])
	}

	it('without a group, the later fact updates the earlier one', async () => {
		await addV5('scope_v5_none', BOSTON)
		await addV5('scope_v5_none', SEATTLE)
		updated(await latest('scope_v5_none'))
	})

	it('v5 group: facts of two groups of one namespace both stay latest', async () => {
		await addV5('scope_v5_groups', BOSTON, { group: { user: 'a' } })
		await addV5('scope_v5_groups', SEATTLE, { group: { user: 'b' } })
		isolated(await latest('scope_v5_groups'))
	})

	it('v5 group: a document of the same group still updates', async () => {
		await addV5('scope_v5_same', BOSTON, { group: { user: 'a', team: 'x' } })
		await addV5('scope_v5_same', SEATTLE, { group: { team: 'x', user: 'a' } })
		updated(await latest('scope_v5_same'))
	})

	it('v5 batch items and PATCH set the group', async () => {
		await addV5('scope_v5_batch', BOSTON, { group: { user: 'a' } })
		const batch = await t.json('POST', '/ns/scope_v5_batch/document/batch', {
			documents: [{ content: SEATTLE, group: { user: 'b' } }],
			dreaming: 'instant',
		})
		expect(batch.status).toBe(200)
		expect((await t.waitForStatus(batch.body.results[0].id)).status).toBe('done')
		isolated(await latest('scope_v5_batch'))

		await addV5('scope_v5_patch', BOSTON, { group: { user: 'a' } })
		const other = await addV5('scope_v5_patch', 'Alex owns a red bike.', { id: 'bike' })
		const patched = await t.json('PATCH', '/ns/scope_v5_patch/document/bike', {
			content: SEATTLE,
			group: { user: 'b' },
			dreaming: 'instant',
		})
		expect(patched.status).toBe(200)
		expect((await t.waitForStatus(other.id)).status).toBe('done')
		isolated(await latest('scope_v5_patch'))
	})

	it('v3 filterByMetadata: facts of two scopes both stay latest; a scope that matches updates', async () => {
		await addV3('scope_v3', BOSTON, { metadata: { user: 'a' }, filterByMetadata: { user: 'a' } })
		await addV3('scope_v3', SEATTLE, { metadata: { user: 'b' }, filterByMetadata: { user: 'b' } })
		isolated(await latest('scope_v3'))
		await addV3('scope_v3_same', BOSTON, { metadata: { user: 'a', kind: 'chat' } })
		await addV3('scope_v3_same', SEATTLE, { metadata: { user: 'a' }, filterByMetadata: { user: 'a' } })
		updated(await latest('scope_v3_same'))
	})

	it('v3 filterByMetadata: every key must match; an array matches any of its values', async () => {
		await addV3('scope_v3_keys', BOSTON, { metadata: { user: 'a', kind: 'chat' } })
		await addV3('scope_v3_keys', SEATTLE, { filterByMetadata: { user: 'a', kind: 'mail' } })
		isolated(await latest('scope_v3_keys'))
		await addV3('scope_v3_any', BOSTON, { metadata: { user: 'a' } })
		await addV3('scope_v3_any', SEATTLE, { filterByMetadata: { user: ['c', 'a'] } })
		updated(await latest('scope_v3_any'))
	})

	it('v3 batch: the batch-wide filterByMetadata applies to its items', async () => {
		await addV3('scope_v3_batch', BOSTON, { metadata: { user: 'a' } })
		const batch = await t.json('POST', '/v3/documents/batch', {
			documents: [{ content: SEATTLE }],
			containerTag: 'scope_v3_batch',
			dreaming: 'instant',
			filterByMetadata: { user: 'b' },
		})
		expect(batch.status).toBe(200)
		expect((await t.waitForStatus(batch.body.results[0].id)).status).toBe('done')
		isolated(await latest('scope_v3_batch'))
	})

	it('v3 PATCH: a changed document is formed again in the scope it is given', async () => {
		await addV3('scope_v3_patch', BOSTON, { metadata: { user: 'a' } })
		const other = await addV3('scope_v3_patch', 'Alex owns a red bike.')
		const patched = await t.json('PATCH', `/v3/documents/${other.id}`, {
			content: SEATTLE,
			filterByMetadata: { user: 'b' },
		})
		expect(patched.status).toBe(200)
		const done = await t.waitForStatus(other.id)
		expect(done.status).toBe('done')
		isolated(await latest('scope_v3_patch'))
	})

	it('file uploads: v3 filterByMetadata and v5 group scope the formation', async () => {
		await addV3('scope_files', BOSTON, { metadata: { user: 'a' } })
		const v3 = await upload(
			t,
			{ bytes: new TextEncoder().encode(SEATTLE), name: 'seattle.txt', type: 'text/plain' },
			{ containerTag: 'scope_files', dreaming: 'instant', filterByMetadata: JSON.stringify({ user: 'b' }) },
		)
		expect(v3.status).toBe(200)
		expect((await t.waitForStatus(v3.body.id)).status).toBe('done')
		isolated(await latest('scope_files'))
		const refused = await upload(
			t,
			{ bytes: new TextEncoder().encode(SEATTLE), name: 'seattle.txt', type: 'text/plain' },
			{ containerTag: 'scope_files', filterByMetadata: '{"user": {"nested": true}}' },
		)
		expect(refused.status).toBe(400)

		await addV5('scope_files_v5', BOSTON, { group: { user: 'a' } })
		const form = new FormData()
		form.append('file', new File([SEATTLE], 'seattle.txt', { type: 'text/plain' }))
		form.append('group', JSON.stringify({ user: 'b' }))
		form.append('dreaming', 'instant')
		const response = await t.service.app!.handle(
			new Request('http://localhost/ns/scope_files_v5/document/file', {
				method: 'POST',
				body: form,
				headers: { authorization: `Bearer ${t.key}` },
			}),
		)
		expect(response.status).toBe(200)
		const v5 = (await response.json()) as { id: string }
		expect((await t.waitForStatus(encodeURIComponent(v5.id))).status).toBe('done')
		isolated(await latest('scope_files_v5'))
	})

	it('a dreaming batch does not link documents of different groups to each other', async () => {
		const ids: string[] = []
		for (const [content, user] of [
			[BOSTON, 'a'],
			[SEATTLE, 'b'],
		] as const) {
			const added = await t.json('POST', '/ns/scope_dream/document', { content, group: { user } })
			expect(added.status).toBe(200)
			ids.push(added.body.id)
		}
		for (const id of ids) {
			const deadline = Date.now() + 30_000
			for (;;) {
				const document = await t.json('GET', `/v3/documents/${id}`)
				if (document.body.dreamingStatus === 'done') break
				if (Date.now() > deadline) throw new Error(`document ${id} was not dreamed`)
				await Bun.sleep(100)
			}
		}
		isolated(await latest('scope_dream'))
	}, 60_000)
})
