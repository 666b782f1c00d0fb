import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestService, type TestService } from '../../testkit/service.ts'

const V5_PATH = /^\/(ns|namespaces|connectors|organization|feedback)(\/|$)/

describe('v5 OpenAPI documents', () => {
	let t: TestService
	let v5: any
	let full: any
	beforeAll(async () => {
		t = await startTestService('pglite')
		v5 = await (await t.request('GET', '/v5/openapi', { key: null })).json()
		full = await (await t.request('GET', '/openapi.json', { key: null })).json()
	}, 180_000)
	afterAll(() => t.stop())

	const operations = (spec: any) =>
		Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
			Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
		)

	it('/v5/openapi holds the v5 operations only, at the root paths the SDKs call', () => {
		const all = operations(v5)
		expect(all.length).toBeGreaterThan(20)
		for (const { path, operation } of all) {
			expect(path).toMatch(V5_PATH)
			expect(operation.tags[0]).toStartWith('v5 ')
		}
		const ids = all.map(({ operation }) => operation.operationId)
		for (const id of [
			'postNsByNamespaceDocument',
			'deleteNsByNamespaceDocument',
			'postNsByNamespaceDocumentBatch',
			'getNsByNamespaceDocumentById',
			'patchNsByNamespaceDocumentById',
			'postNsByNamespaceSearch',
			'postNsByNamespaceProfile',
			'getNsByNamespaceProfileBuckets',
			'putNsByNamespaceProfileBuckets',
			'deleteNsByNamespaceProfileBuckets',
			'deleteNsByNamespaceMemories',
			'deleteNsByNamespaceMemoriesSemantic',
			'getNsByNamespaceMemoriesById',
			'postNsByNamespaceListByType',
			'getNs',
			'getNamespaces',
			'getNsByNamespace',
			'patchNsByNamespace',
			'deleteNsByNamespace',
			'getOrganization',
			'patchOrganization',
			'postFeedback',
		]) {
			expect(ids).toContain(id)
		}
	})

	it('/openapi.json carries the v5 operations in their own tag group, without the /v5 copies', () => {
		expect(full.tags.map((tag: { name: string }) => tag.name)).toContain('v5 documents')
		const paths = Object.keys(full.paths)
		expect(paths).toContain('/ns/{namespace}/document')
		expect(paths).toContain('/v3/documents')
		expect(paths.filter((path) => path.startsWith('/v5/'))).toEqual([])
	})

	it("the documented request examples are accepted by their routes (Swagger's Try it out)", async () => {
		await t.json('POST', '/ns/user_123/document', { content: 'Seed so the namespace exists.', id: 'seed' })
		let tried = 0
		for (const { path, method, operation } of operations(v5)) {
			const example = operation.requestBody?.content?.['application/json']?.schema?.examples?.[0]
			if (example === undefined) continue
			const url = path.replace('{namespace}', 'user_123').replace('{id}', 'seed').replace('{type}', 'documents')
			const answer = await t.json(method.toUpperCase(), url, example)
			expect([url, method, answer.status]).not.toEqual([url, method, 400])
			tried++
		}
		expect(tried).toBeGreaterThan(8)
	})
})
