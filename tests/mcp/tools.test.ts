import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Client } from '@modelcontextprotocol/client'
import { createOrgKey } from '../../core/auth/api-keys.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { callError, callOk, connectMcp, listen, waitForDocument } from '../../testkit/mcp.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const TOOL_NAMES = [
	'search_memory',
	'add_memory',
	'listDocuments',
	'getDocument',
	'listMemories',
	'listSpaces',
	'whoAmI',
]

describeEachDriver('MCP tools over Streamable HTTP', (driver) => {
	let service: TestService
	let server: ReturnType<typeof listen>
	let client: Client
	let otherKey: string
	let documentId: string

	beforeAll(async () => {
		// Memories form as soon as a document is done, so a test can wait for them.
		service = await startTestService(driver, { env: { MEMORY_DREAMING_QUIET_SECONDS: '0' } })
		server = listen(service)
		client = await connectMcp(server.url, service.key)
		otherKey = await service.createKey('mcp-other-org')
	}, 300_000)

	afterAll(async () => {
		await client?.close()
		await server?.stop()
		await service?.stop()
	})

	describe('tools/list', () => {
		it('lists Supermemory’s seven tools with output schemas and read-only or destructive hints', async () => {
			const { tools } = await client.listTools()
			expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort())
			for (const tool of tools) {
				expect(tool.outputSchema?.type).toBe('object')
				const writes = tool.name === 'add_memory'
				expect(tool.annotations?.readOnlyHint).toBe(!writes)
				expect(tool.annotations?.destructiveHint).toBe(writes)
			}
			const search = tools.find((tool) => tool.name === 'search_memory')!
			expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual([
				'containerTag',
				'includeProfile',
				'query',
			])
			expect(search.inputSchema.required).toEqual(['query'])
			const add = tools.find((tool) => tool.name === 'add_memory')!
			expect((add.inputSchema.properties as any).action.enum).toEqual(['save', 'forget'])
		})

		it('serves a client of the 2026-07-28 era as well as a 2025-era one', async () => {
			const modern = await connectMcp(server.url, service.key, { era: 'modern' })
			try {
				expect(modern.getProtocolEra()).toBe('modern')
				expect(client.getProtocolEra()).toBe('legacy')
				const { tools } = await modern.listTools()
				expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort())
				const who = await callOk(modern, 'whoAmI')
				expect(who.organization.name).toBe('default')
			} finally {
				await modern.close()
			}
		})
	})

	describe('add_memory, getDocument and listDocuments', () => {
		it('saves: answers queued with the document id at once, and the document reaches done', async () => {
			const saved = await callOk(client, 'add_memory', {
				content: 'Marie prefers oat milk in her coffee. Marie lives in Lyon.',
				containerTag: 'mcp_user',
			})
			expect(saved).toMatchObject({ action: 'save', success: true, containerTag: 'mcp_user', status: 'queued' })
			expect(saved.id).toBeString()
			documentId = saved.id
			const document = await waitForDocument(client, documentId)
			expect(document).toMatchObject({ id: documentId, containerTag: 'mcp_user', status: 'done', type: 'text' })
			expect(document.content).toContain('oat milk')
			expect(document.contentTruncated).toBe(false)
			// The REST API sees the same document.
			const rest = await service.json('GET', `/v3/documents/${documentId}`)
			expect(rest.body.metadata).toEqual({ sm_source: 'mcp' })
		})

		it('lists the space’s documents with their status', async () => {
			const listed = await callOk(client, 'listDocuments', { containerTag: 'mcp_user' })
			expect(listed.documents.map((d: any) => [d.id, d.status])).toEqual([[documentId, 'done']])
			expect(listed.pagination).toEqual({ currentPage: 1, limit: 10, totalItems: 1, totalPages: 1 })
			const empty = await callOk(client, 'listDocuments', { containerTag: 'mcp_user', page: 2 })
			expect(empty.documents).toEqual([])
		})

		it('uses the default space when no containerTag is named', async () => {
			const saved = await callOk(client, 'add_memory', { content: 'The default space holds this note.' })
			expect(saved.containerTag).toBe('sm_project_default')
			const listed = await callOk(client, 'listDocuments')
			expect(listed.documents.map((d: any) => d.id)).toContain(saved.id)
		})
	})

	describe('search_memory and listMemories', () => {
		it('finds the saved memory, with the space’s profile by default', async () => {
			const found = await callOk(client, 'search_memory', {
				query: 'what milk does Marie like',
				containerTag: 'mcp_user',
			})
			expect(found.containerTag).toBe('mcp_user')
			expect(found.results.length).toBeGreaterThan(0)
			expect(found.results.some((r: any) => r.text.includes('oat milk'))).toBe(true)
			expect(found.total).toBe(found.results.length)
			expect(found.profile).toBeDefined()
			const facts = [...found.profile.static, ...found.profile.dynamic]
			expect(facts.some((fact: string) => fact.includes('oat milk'))).toBe(true)
		})

		it('leaves the profile out when includeProfile is false', async () => {
			const found = await callOk(client, 'search_memory', {
				query: 'where does Marie live',
				includeProfile: false,
				containerTag: 'mcp_user',
			})
			expect(found.profile).toBeUndefined()
			expect(found.results.some((r: any) => r.text.includes('Lyon'))).toBe(true)
		})

		it('lists the latest memories with their source document', async () => {
			const { memories, pagination } = await callOk(client, 'listMemories', { containerTag: 'mcp_user' })
			expect(memories.length).toBeGreaterThan(0)
			expect(pagination.totalItems).toBeGreaterThanOrEqual(memories.length)
			for (const memory of memories) expect(memory.documentIds).toContain(documentId)
			expect(memories.some((m: any) => m.memory.includes('oat milk'))).toBe(true)
		})
	})

	describe('add_memory forget', () => {
		it('forgets a memory by its exact content, then reports the second forget as a tool error', async () => {
			const { memories } = await callOk(client, 'listMemories', { containerTag: 'mcp_user' })
			const milk = memories.find((m: any) => m.memory.includes('oat milk'))
			const forgotten = await callOk(client, 'add_memory', {
				content: milk.memory,
				action: 'forget',
				containerTag: 'mcp_user',
			})
			expect(forgotten).toMatchObject({ action: 'forget', success: true, id: milk.id })
			const after = await callOk(client, 'listMemories', { containerTag: 'mcp_user' })
			expect(after.memories.map((m: any) => m.id)).not.toContain(milk.id)
			const again = await callError(client, 'add_memory', {
				content: milk.memory,
				action: 'forget',
				containerTag: 'mcp_user',
			})
			expect(again).toContain('Memory already forgotten')
		})

		it('reports a forget that matches nothing as a tool error, not a success', async () => {
			const text = await callError(client, 'add_memory', {
				content: 'quantum chromodynamics lattice parameters',
				action: 'forget',
				containerTag: 'mcp_user',
			})
			expect(text).toContain('nothing was forgotten')
		})
	})

	describe('listSpaces, whoAmI, resources and the context prompt', () => {
		it('lists the spaces with counts, the default one marked', async () => {
			const { spaces, defaultSpace } = await callOk(client, 'listSpaces')
			expect(defaultSpace).toBe('sm_project_default')
			const user = spaces.find((space: any) => space.key === 'mcp_user')
			expect(user).toMatchObject({ documentCount: 1, isDefault: false })
			expect(spaces.find((space: any) => space.key === 'sm_project_default').isDefault).toBe(true)
		})

		it('tells who the key belongs to', async () => {
			const who = await callOk(client, 'whoAmI')
			expect(who).toMatchObject({ accessType: 'full', activeSpace: 'sm_project_default', assignedSpaces: null })
			expect(who.organization.name).toBe('default')
		})

		it('reads the profile and spaces resources and the context prompt of the default space', async () => {
			const scoped = await connectMcp(server.url, service.key, { headers: { 'x-sm-project': 'mcp_user' } })
			try {
				const { resources } = await scoped.listResources()
				expect(resources.map((r) => r.uri).sort()).toEqual(['supermemory://profile', 'supermemory://spaces'])
				const profile = await scoped.readResource({ uri: 'supermemory://profile' })
				const profileText = (profile.contents[0] as { text: string }).text
				expect(profileText).toContain('# Profile of mcp_user')
				expect(profileText).toContain('Lyon')
				const spaces = await scoped.readResource({ uri: 'supermemory://spaces' })
				expect((spaces.contents[0] as { text: string }).text).toContain('- mcp_user (default)')
				const { prompts } = await scoped.listPrompts()
				expect(prompts.map((p) => p.name)).toEqual(['context'])
				const prompt = await scoped.getPrompt({ name: 'context' })
				const promptText = (prompt.messages[0]!.content as { text: string }).text
				expect(promptText).toContain('Active space: mcp_user')
				expect(promptText).toContain('Lyon')
				expect(promptText).toContain('sm_project_default')
			} finally {
				await scoped.close()
			}
		})

		it('takes the default space from the x-sm-project header', async () => {
			const scoped = await connectMcp(server.url, service.key, { headers: { 'x-sm-project': 'mcp_user' } })
			try {
				const listed = await callOk(scoped, 'listDocuments')
				expect(listed.containerTag).toBe('mcp_user')
				expect(listed.documents.map((d: any) => d.id)).toEqual([documentId])
			} finally {
				await scoped.close()
			}
		})
	})

	describe('bad arguments', () => {
		it('answers a wrongly typed or missing argument with a tool error naming it', async () => {
			expect(await callError(client, 'search_memory', { query: 42 })).toContain('query')
			expect(await callError(client, 'getDocument', {})).toContain('documentId')
			expect(await callError(client, 'listDocuments', { limit: 500 })).toContain('limit')
		})

		it('answers API errors with the API’s message', async () => {
			expect(await callError(client, 'getDocument', { documentId: 'no-such-document' })).toContain('Document not found')
			expect(await callError(client, 'listDocuments', { containerTag: 'not a tag!' })).toContain(
				'containerTag "not a tag!" must be',
			)
			expect(await callError(client, 'add_memory', { content: '   ' })).toContain('content must not be blank')
		})
	})

	describe('tenancy', () => {
		it('shows another organization’s key none of this organization’s data', async () => {
			const other = await connectMcp(server.url, otherKey)
			try {
				expect((await callOk(other, 'listDocuments', { containerTag: 'mcp_user' })).documents).toEqual([])
				expect((await callOk(other, 'listMemories', { containerTag: 'mcp_user' })).memories).toEqual([])
				const found = await callOk(other, 'search_memory', { query: 'where does Marie live', containerTag: 'mcp_user' })
				expect(found.results).toEqual([])
				expect(found.profile).toEqual({ static: [], dynamic: [] })
				expect(await callError(other, 'getDocument', { documentId })).toContain('Document not found')
				const { spaces } = await callOk(other, 'listSpaces')
				expect(spaces.map((space: any) => space.key)).toEqual(['sm_project_default'])
				expect((await callOk(other, 'whoAmI')).organization.name).toBe('mcp-other-org')
				// Forgetting through the other organization changes nothing here.
				await callError(other, 'add_memory', {
					content: 'Marie lives in Lyon.',
					action: 'forget',
					containerTag: 'mcp_user',
				})
				const mine = await callOk(client, 'search_memory', { query: 'where does Marie live', containerTag: 'mcp_user' })
				expect(mine.results.some((r: any) => r.text.includes('Lyon'))).toBe(true)
			} finally {
				await other.close()
			}
		})

		it('holds a key restricted to some container tags to them', async () => {
			const orgId = (await service.json('GET', '/v3/usage')).body.orgId
			const { key } = await createOrgKey(service.service.plugins.storage, {
				orgId,
				name: 'mcp restricted',
				containerTags: ['mcp_user'],
			})
			const restricted = await connectMcp(server.url, key)
			try {
				const who = await callOk(restricted, 'whoAmI')
				expect(who).toMatchObject({ accessType: 'restricted', assignedSpaces: ['mcp_user'], activeSpace: 'mcp_user' })
				expect((await callOk(restricted, 'listDocuments')).documents.map((d: any) => d.id)).toEqual([documentId])
				expect((await callOk(restricted, 'listSpaces')).spaces.map((s: any) => s.key)).toEqual(['mcp_user'])
				const refused = await callError(restricted, 'listDocuments', { containerTag: 'sm_project_default' })
				expect(refused).toContain('Forbidden')
				expect(refused).toContain('"sm_project_default" is not one of them')
				expect(await callError(restricted, 'add_memory', { content: 'x', containerTag: 'elsewhere' })).toContain(
					'Forbidden',
				)
				const elsewhere = (await callOk(client, 'listDocuments')).documents[0].id
				expect(await callError(restricted, 'getDocument', { documentId: elsewhere })).toContain('Document not found')
			} finally {
				await restricted.close()
			}
		})
	})
})
