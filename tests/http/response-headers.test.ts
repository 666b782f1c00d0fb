import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { tmpdir } from 'node:os'
import { folderConnector } from '@memory-service/example-folder-connector'
import { maskSecret } from '../../core/settings/fields.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

describe('response headers and masks', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: null, plugins: [folderConnector({ root: tmpdir() })] })
	})
	afterAll(() => t.stop())

	it('sends nosniff and no framing on every answer, errors and public pages included', async () => {
		for (const [path, key] of [
			['/health', null],
			['/swagger', null],
			['/console', null],
			['/v3/documents/nope', undefined],
			['/v3/settings', null],
		] as const) {
			const response = await t.request('GET', path, key === null ? { key: null } : {})
			expect(response.headers.get('x-content-type-options')).toBe('nosniff')
			expect(response.headers.get('x-frame-options')).toBe('DENY')
		}
	})

	it("marks authenticated answers no-store, so no cache keeps an organization's data", async () => {
		const settings = await t.request('GET', '/v3/settings')
		expect(settings.status).toBe(200)
		expect(settings.headers.get('cache-control')).toBe('no-store')
		const keys = await t.request('GET', '/v3/keys')
		expect(keys.headers.get('cache-control')).toBe('no-store')
	})

	it('refuses a redirectUrl that is not http(s) at creation, before anything is stored', async () => {
		for (const redirectUrl of ['javascript:alert(1)//', 'http://example.com:99999/x', 'data:text/html,x']) {
			const { status } = await t.json('POST', '/v3/connections/folder', { redirectUrl })
			expect(status).toBe(400)
		}
		expect((await t.json('POST', '/v3/connections/list', {})).body).toEqual([])
	})

	it('never shows a short secret, even in part', () => {
		expect(maskSecret('q9Zx')).toBe('****')
		expect(maskSecret('short-secret')).toBe('****cret')
		expect(maskSecret('abcdefghijk')).toBe('****')
	})
})
