import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { settingsFromEnv } from '../../core/config/settings.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const mcpInitialize = {
	jsonrpc: '2.0',
	id: 1,
	method: 'initialize',
	params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
}

describe('surface settings', () => {
	it('serves MCP and the console unless turned off, and refuses a value that is not on or off', () => {
		expect(settingsFromEnv({})).toMatchObject({ mcpEnabled: true, consoleEnabled: true })
		expect(settingsFromEnv({ MEMORY_MCP_ENABLED: 'off', MEMORY_CONSOLE_ENABLED: 'false' })).toMatchObject({
			mcpEnabled: false,
			consoleEnabled: false,
		})
		expect(() => settingsFromEnv({ MEMORY_MCP_ENABLED: 'maybe' })).toThrow('MEMORY_MCP_ENABLED must be on or off')
	})
})

describe('a deployment without MCP and the console', () => {
	let service: TestService
	beforeAll(async () => {
		service = await startTestService('pglite', {
			env: { MEMORY_MCP_ENABLED: 'off', MEMORY_CONSOLE_ENABLED: 'off' },
			extractor: null,
		})
	})
	afterAll(() => service.stop())

	it('answers /mcp and /console with a JSON 404 while the REST API works', async () => {
		const mcp = await service.request('POST', '/mcp', {
			body: mcpInitialize,
			headers: { accept: 'application/json, text/event-stream', host: 'localhost' },
		})
		expect(mcp.status).toBe(404)
		expect(mcp.headers.get('content-type')).toContain('application/json')
		const page = await service.request('GET', '/console', { key: null })
		expect(page.status).toBe(404)
		const list = await service.json('POST', '/v3/documents/list', {})
		expect(list.status).toBe(200)
	})
})

describe('a default deployment', () => {
	let service: TestService
	beforeAll(async () => {
		service = await startTestService('pglite', { extractor: null })
	})
	afterAll(() => service.stop())

	it('serves /mcp and /console beside the REST API', async () => {
		const mcp = await service.request('POST', '/mcp', {
			body: mcpInitialize,
			headers: { accept: 'application/json, text/event-stream', host: 'localhost' },
		})
		expect(mcp.status).toBe(200)
		const page = await service.request('GET', '/console', { key: null })
		expect(page.status).toBe(200)
	})
})

describe('profile settings', () => {
	it('reads MEMORY_PROFILE_DYNAMIC_DAYS as a validated setting', () => {
		expect(settingsFromEnv({}).profileDynamicDays).toBe(30)
		expect(settingsFromEnv({ MEMORY_PROFILE_DYNAMIC_DAYS: '7' }).profileDynamicDays).toBe(7)
		expect(() => settingsFromEnv({ MEMORY_PROFILE_DYNAMIC_DAYS: 'soon' })).toThrow(
			'MEMORY_PROFILE_DYNAMIC_DAYS must be',
		)
	})
})
