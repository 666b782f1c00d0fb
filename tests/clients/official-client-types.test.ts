import { afterAll, beforeAll, expect, it } from 'bun:test'
import type Supermemory from 'supermemory'
import { toFile } from 'supermemory'
import { type ClientHarness, startClientHarness } from '../../testkit/client.ts'
import { type ClientTypes, clientTypeErrors } from '../../testkit/client-types.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { publishedOAuthConnectors } from '../../testkit/published-connectors.ts'
import { samplePdf } from '../../testkit/sample-files.ts'

/**
 * Every call of the published client (4.25.4) against a real server, each answer checked field by field against the
 * type the client declares for it (testkit/client-types.ts).
 */
describeEachDriver('official supermemory client (v4): response types', (driver) => {
	let harness: ClientHarness
	let client: Supermemory
	beforeAll(async () => {
		harness = await startClientHarness(driver, { plugins: await publishedOAuthConnectors() })
		client = harness.client
	}, 60_000)
	afterAll(() => harness.stop())

	const conforms = (name: keyof typeof ClientTypes, value: unknown) => expect(clientTypeErrors(name, value)).toEqual([])
	const instant = { dreaming: 'instant' } as object

	it('answers every document call with the fields and types the client declares', async () => {
		const added = await client.add({
			content: 'Marie prefers oat milk in her cappuccino.',
			containerTag: 'types_user',
			metadata: { source: 'chat' },
			...instant,
		})
		conforms('AddResponse', added)
		const plain = await client.documents.add({
			content: 'The wifi password rotates on Mondays.',
			containerTag: 'types_user',
		})
		conforms('AddResponse', plain)
		conforms('DocumentListProcessingResponse', await client.documents.listProcessing())

		const done = await harness.waitDone(added.id)
		await harness.waitDone(plain.id)
		conforms('DocumentGetResponse', done)
		expect(Object.hasOwn(done, 'spatialPoint')).toBe(true)

		conforms('DocumentUpdateResponse', await client.documents.update(plain.id, { metadata: { edited: true } }))
		conforms('DocumentListResponse', await client.documents.list({ containerTags: ['types_user'], limit: 10 }))
		conforms(
			'DocumentListResponse',
			await client.documents.list({ containerTags: ['types_user'], includeContent: true }),
		)
		conforms(
			'DocumentBatchAddResponse',
			await client.documents.batchAdd({
				documents: [{ content: 'First batch item.' }, { content: '' }],
				containerTag: 'types_user',
			}),
		)
		const file = await client.documents.uploadFile({
			file: await toFile(await samplePdf('Pier', ['The ferry docks at pier four.']), 'pier.pdf'),
			containerTag: 'types_user',
		})
		conforms('DocumentUploadFileResponse', file)
		conforms('DocumentGetResponse', await harness.waitDone(file.id))

		for (const search of [client.search.documents, client.search.execute]) {
			const found = await search.call(client.search, { q: 'what milk does Marie like', containerTags: ['types_user'] })
			expect(found.results.length).toBeGreaterThan(0)
			conforms('SearchDocumentsResponse', found)
		}
		conforms('DocumentDeleteBulkResponse', await client.documents.deleteBulk({ ids: [plain.id, 'no-such-document'] }))
	}, 120_000)

	it('answers every memory, search and profile call with the fields and types the client declares', async () => {
		const added = await client.add({
			content: 'user: I live in Boston and I play the cello.\nassistant: Lovely!',
			containerTag: 'types_chat',
			...instant,
		})
		await harness.waitDone(added.id)
		const found = await client.search({
			q: 'where does the user live',
			containerTag: 'types_chat',
			include: { documents: true, relatedMemories: true, summaries: true },
		} as Parameters<Supermemory['search']>[0])
		expect(found.results.length).toBeGreaterThan(0)
		conforms('SearchMemoriesResponse', found)
		const hybrid = await client.search.memories({
			q: 'cello',
			containerTag: 'types_chat',
			searchMode: 'hybrid',
		} as Parameters<Supermemory['search']['memories']>[0])
		conforms('SearchMemoriesResponse', hybrid)

		const updated = await client.memories.updateMemory({
			containerTag: 'types_chat',
			id: found.results[0]!.id,
			newContent: 'The user lives in Portland',
		})
		conforms('MemoryUpdateMemoryResponse', updated)
		const versioned = await client.search({ q: 'where does the user live', containerTag: 'types_chat' })
		conforms('SearchMemoriesResponse', versioned)
		conforms('MemoryForgetResponse', await client.memories.forget({ containerTag: 'types_chat', id: updated.id }))

		conforms('ProfileResponse', await client.profile({ containerTag: 'types_chat' }))
		conforms('ProfileResponse', await client.profile({ containerTag: 'types_chat', q: 'cello' }))
		conforms('ProfileResponse', await client.profile({ containerTag: 'nobody_yet' }))
	}, 120_000)

	it('answers the settings calls with the types the client declares, profileBuckets an array when unset', async () => {
		const fresh = await client.settings.get()
		conforms('SettingGetResponse', fresh)
		expect((fresh as Record<string, unknown>).profileBuckets).toEqual([])
		const updated = await client.settings.update({ chunkSize: 800, githubClientId: 'gh-id' })
		conforms('SettingUpdateResponse', updated)
		expect((updated.updated as Record<string, unknown>).profileBuckets).toEqual([])
		conforms('SettingGetResponse', await client.settings.get())
	}, 120_000)
})
