import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type ClientHarness, startClientHarness } from '../../testkit/client.ts'
import { followAuthLink } from '../../testkit/connections.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'
import { githubOnEmulator } from '../../testkit/github-service.ts'

/** The published client's connections.* calls against a running server, GitHub served by the emulator. */
describe('official client: connections', () => {
	let emulator: GithubEmulator
	let h: ClientHarness
	beforeAll(async () => {
		emulator = startGithubEmulator()
		emulator.createRepo('octo/docs', { 'README.md': '# Docs\n\nDeploys happen on Fridays.' })
		h = await startClientHarness('pglite', {
			...githubOnEmulator(emulator),
		})
	}, 180_000)
	afterAll(async () => {
		await h?.stop()
		emulator?.stop()
	})

	it('creates, authorizes, lists, reads, configures, imports, lists documents and deletes', async () => {
		const { client } = h
		const created = await client.connections.create('github', {
			containerTag: 'client',
			documentLimit: 100,
			metadata: { team: 'docs' },
		})
		expect(created.expiresIn).toBe('1 hour')
		const landed = await followAuthLink(created.authLink!)
		expect(landed.status).toBe(200)

		const listed = await client.connections.list({ containerTags: ['client'] })
		expect(listed.map((c) => c.id)).toEqual([created.id])
		const byId = await client.connections.getByID(created.id)
		expect(byId).toMatchObject({ id: created.id, provider: 'github', documentLimit: 100, metadata: { team: 'docs' } })
		expect((await client.connections.getByTag('github', { containerTags: ['client'] })).id).toBe(created.id)

		const resources = await client.connections.resources(created.id, { page: 1, per_page: 10 })
		expect(resources.resources.map((r) => (r as { full_name: string }).full_name)).toEqual(['octo/docs'])
		const configured = await client.connections.configure(created.id, {
			resources: [{ id: 1, full_name: 'octo/docs', defaultBranch: 'main' }],
		})
		expect(configured).toMatchObject({ success: true })
		expect(await client.connections.import('github', { containerTags: ['client'] })).toBe('Importing connections...')

		let documents: Awaited<ReturnType<typeof client.connections.listDocuments>> = []
		for (let i = 0; i < 400 && documents.length === 0; i++) {
			documents = await client.connections.listDocuments('github', { containerTags: ['client'] })
			if (documents.length === 0) await Bun.sleep(50)
		}
		expect(documents.map((d) => d.title)).toEqual(['README.md'])

		const deleted = await client.connections.deleteByID(created.id, { deleteDocuments: 'false' })
		expect(deleted).toEqual({ id: created.id, provider: 'github' })
		expect((await client.documents.get(documents[0]!.id)).id).toBe(documents[0]!.id)

		const second = await client.connections.create('github', { containerTags: ['client-2'] })
		expect(await client.connections.deleteByProvider('github', { containerTags: ['client-2'] })).toEqual({
			id: second.id,
			provider: 'github',
		})
	}, 120_000)
})
