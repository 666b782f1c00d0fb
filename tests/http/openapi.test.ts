import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestService, type TestService } from '../../testkit/service.ts'

const ROUTES: [string, string, boolean][] = [
	['post', '/v4/profile', true],
	['post', '/v4/profile/buckets', true],
	['get', '/v3/container-tags/list', false],
	['get', '/v3/container-tags/{containerTag}', false],
	['patch', '/v3/container-tags/{containerTag}', true],
	['delete', '/v3/container-tags/{containerTag}', false],
	['post', '/v3/container-tags/merge', true],
	['get', '/v3/container-tags/merge/{mergeId}', false],
	['post', '/v3/documents', true],
	['post', '/v3/documents/list', true],
	['get', '/v3/documents/processing', false],
	['delete', '/v3/documents/bulk', true],
	['get', '/v3/documents/{id}', false],
	['patch', '/v3/documents/{id}', true],
	['delete', '/v3/documents/{id}', false],
	['get', '/v3/documents/{id}/chunks', false],
	['post', '/v3/documents/batch', true],
	// Multipart, not JSON: its form is checked below.
	['post', '/v3/documents/file', false],
	['get', '/v3/documents/{id}/file-url', false],
	['post', '/v3/search', true],
	['get', '/v3/settings', false],
	['patch', '/v3/settings', true],
	['post', '/v3/settings/reset', true],
	['get', '/v3/usage', false],
	['get', '/v3/feedback', false],
	['post', '/v4/search', true],
	['post', '/v4/memories', true],
	['patch', '/v4/memories', true],
	['delete', '/v4/memories', true],
	['post', '/v4/memories/list', true],
	['post', '/v4/memories/forget-matching', true],
	['post', '/v4/conversations', true],
	['post', '/v3/connections/list', true],
	['post', '/v3/connections/{provider}', true],
	['post', '/v3/connections/{provider}/connection', true],
	['post', '/v3/connections/{provider}/documents', true],
	['post', '/v3/connections/{provider}/import', true],
	['post', '/v3/connections/{provider}/configure', true],
	['get', '/v3/connections/{connectionId}', false],
	['delete', '/v3/connections/{connectionId}', false],
	['get', '/v3/connections/{connectionId}/resources', false],
	['get', '/v3/connections/{connectionId}/sync-runs', false],
	['get', '/v3/connections/{connectionId}/sync-runs/{runId}/failures', false],
]

describe('OpenAPI document and Swagger UI', () => {
	let t: TestService
	let spec: any
	beforeAll(async () => {
		t = await startTestService('pglite')
		spec = await (await t.request('GET', '/openapi.json', { key: null })).json()
	}, 180_000)
	afterAll(() => t.stop())

	it('declares version 3.0.0 and bearer authentication', () => {
		expect(spec.info.version).toBe('3.0.0')
		expect(spec.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' })
	})

	for (const [method, path, hasBody] of ROUTES) {
		it(`documents ${method.toUpperCase()} ${path} with its request and response schemas`, () => {
			const operation = spec.paths[path]?.[method]
			expect(operation).toBeDefined()
			if (hasBody) expect(operation.requestBody.content['application/json'].schema).toBeDefined()
			const ok =
				operation.responses['200'] ??
				operation.responses['201'] ??
				operation.responses['202'] ??
				operation.responses['204']
			expect(ok).toBeDefined()
			expect(operation.responses['401']).toBeDefined()
		})
	}

	it('documents the file upload as a multipart form with its file and fields', () => {
		const form = spec.paths['/v3/documents/file'].post.requestBody.content['multipart/form-data'].schema
		expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' })
		expect(Object.keys(form.properties)).toEqual(expect.arrayContaining(['containerTag', 'metadata', 'customId']))
		expect(spec.paths['/v3/documents/file'].post.responses['415']).toBeDefined()
		const batch = spec.paths['/v3/documents/batch'].post.requestBody.content['application/json'].schema
		expect(batch.properties.documents.anyOf).toHaveLength(2)
	})

	it('serves Swagger UI from local assets, so it works offline', async () => {
		const html = await (await t.request('GET', '/swagger', { key: null })).text()
		expect(html).toContain('/swagger/assets/swagger-ui-bundle.js')
		expect(html).toContain('"url":"openapi.json"')
		const bundle = await t.request('GET', '/swagger/assets/swagger-ui-bundle.js', { key: null })
		expect(bundle.status).toBe(200)
		expect((await bundle.text()).length).toBeGreaterThan(100_000)
	})
})
