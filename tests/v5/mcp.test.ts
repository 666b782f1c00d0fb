import { afterAll, beforeAll, expect, it } from 'bun:test'
import type { Client } from '@modelcontextprotocol/client'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { callOk, connectMcp, listen } from '../../testkit/mcp.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** The MCP tools read what v5 wrote (the console reads it through v3/v4, see access.test.ts). */
describeEachDriver('MCP tools over v5 data', (driver) => {
	let t: TestService
	let server: ReturnType<typeof listen>
	let client: Client
	beforeAll(async () => {
		t = await startTestService(driver, { env: { MEMORY_DREAMING_QUIET_SECONDS: '0' } })
		server = listen(t)
		client = await connectMcp(server.url, t.key)
	}, 120_000)
	afterAll(async () => {
		await client?.close()
		server?.stop()
		await t?.stop()
	})

	it('lists and searches a document added and appended through v5', async () => {
		await t.json('POST', '/ns/mcp_v5/document', {
			content: 'Marie prefers oat milk.',
			id: 'chat_1',
			dreaming: 'instant',
		})
		await t.json('POST', '/ns/mcp_v5/document', { content: 'Marie lives in Lyon.', id: 'chat_1', dreaming: 'instant' })
		const document = await t.waitForStatus('chat_1')
		const listed = await callOk(client, 'listDocuments', { containerTag: 'mcp_v5' })
		expect(listed.documents.map((d: { id: string }) => d.id)).toEqual([document.id])
		const found = await callOk(client, 'search_memory', { query: 'where does Marie live', containerTag: 'mcp_v5' })
		expect(found.results.some((r: { text: string }) => r.text.includes('Lyon'))).toBe(true)
	})
})
