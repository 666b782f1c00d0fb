import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { toFile } from 'supermemory'
import { type ClientHarness, startClientHarness } from '../../testkit/client.ts'

describe('listing with includeContent', () => {
	let harness: ClientHarness
	beforeAll(async () => {
		harness = await startClientHarness('pglite', { extractor: null })
	}, 60_000)
	afterAll(() => harness.stop())

	it('shows an uploaded file the content GET shows, next to a text document', async () => {
		const notes = 'Deploys go out on Tuesdays.\nThe staging database is reset every night.'
		const uploaded = await harness.client.documents.uploadFile({
			file: await toFile(Buffer.from(notes), 'notes.md', { type: 'text/markdown' }),
			containerTags: JSON.stringify(['opencode_project']),
		})
		const added = await harness.client.add({ content: 'Use bun, not npm.', containerTag: 'opencode_project' })
		const got = await harness.waitDone(uploaded.id)
		await harness.waitDone(added.id)
		expect(got.content).toContain('Deploys go out on Tuesdays.')

		// opencode-supermemory's listMemories sends exactly this body to POST /v3/documents/list (its bundled SDK names it memories.list).
		const listed = await harness.client.documents.list({
			containerTags: ['opencode_project'],
			limit: 20,
			order: 'desc',
			sort: 'createdAt',
			includeContent: true,
		})
		const byId = new Map(listed.memories.map((item) => [item.id, item.content]))
		expect(byId.get(uploaded.id)).toBe(got.content!)
		expect(byId.get(added.id)).toBe('Use bun, not npm.')
	})
})
