import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ErrorResponse } from '../../core/http/schemas/common.ts'
import * as V5 from '../../core/http/v5/responses.ts'
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
	it("documents each operation's success body and v5 error shapes", () => {
		const undocumented = operations(v5)
			.filter(({ operation }) => {
				const success = Object.entries<any>(operation.responses ?? {}).find(([status]) => status.startsWith('2'))
				return !success?.[1]?.content?.['application/json']?.schema || !operation.responses['400']
			})
			.map(({ operation }) => operation.operationId)
		expect(undocumented).toEqual(['deleteNsByNamespace'])
	})

	it('declares the errors its operations answer, in the shape they answer them', async () => {
		const byId = new Map(operations(v5).map(({ operation }) => [operation.operationId, operation]))
		for (const { operation } of operations(v5)) {
			if (operation.operationId === 'deleteNsByNamespace') continue
			for (const status of ['413', '429'])
				expect([operation.operationId, status, !!operation.responses[status]]).toEqual([
					operation.operationId,
					status,
					true,
				])
		}
		await t.json('POST', '/ns/errors/document', { content: 'Quinn keeps bees.', id: 'quinn' })
		await t.json('PATCH', '/v3/settings', { profileBuckets: [{ key: 'hives', description: 'Beekeeping' }] })
		const answers: [string, number, Promise<{ status: number; body: unknown }>][] = [
			['getNsByNamespaceDocumentById', 404, t.json('GET', '/ns/errors/document/missing')],
			['patchNsByNamespaceDocumentById', 404, t.json('PATCH', '/ns/errors/document/missing', { metadata: { a: 1 } })],
			['getNsByNamespaceMemoriesById', 404, t.json('GET', '/ns/errors/memories/missing')],
			['getNsByNamespace', 404, t.json('GET', '/ns/nowhere')],
			['patchNsByNamespace', 404, t.json('PATCH', '/ns/nowhere', { supportingContext: 'x' })],
			['putNsByNamespaceProfileBuckets', 404, t.json('PUT', '/ns/nowhere/profile/buckets', { buckets: { a: 'b' } })],
			['putNsByNamespaceProfileBuckets', 409, t.json('PUT', '/ns/errors/profile/buckets', { buckets: { hives: 'x' } })],
			[
				'deleteNsByNamespaceProfileBuckets',
				409,
				t.json('DELETE', '/ns/errors/profile/buckets', { buckets: ['hives'] }),
			],
			[
				'postNsByNamespaceConnectors',
				402,
				t.json('POST', '/ns/errors/connectors', {
					provider: 's3',
					config: { bucket: 'b', region: 'r', accessKeyId: 'k', secretAccessKey: 's' },
				}),
			],
			['postNsByNamespaceConnectors', 503, t.json('POST', '/ns/errors/connectors', { provider: 'notion' })],
			['getNsByNamespaceConnectorsById', 404, t.json('GET', '/ns/errors/connectors/missing')],
			['postNsByNamespaceConnectorsByIdSync', 404, t.json('POST', '/ns/errors/connectors/missing/sync')],
		]
		for (const [operationId, status, answer] of answers) {
			const { status: got, body } = await answer
			const declared = byId.get(operationId)?.responses?.[String(status)]
			expect([operationId, got, !!declared]).toEqual([operationId, status, true])
			expect([...Value.Errors(ErrorResponse, body)].map((error) => error.message)).toEqual([])
		}
	})

	it('real answers match the documented response schemas', async () => {
		const conforms = (schema: TSchema, answer: { status: number; body: unknown }) => {
			const errors = [...Value.Errors(schema, answer.body)].slice(0, 3).map((e) => `${e.path}: ${e.message}`)
			expect([answer.status, errors]).toEqual([answer.status, []])
			expect(answer.status).toBeLessThan(300)
		}
		const added = await t.json('POST', '/ns/shapes/document', { content: 'Ivy paints lighthouses.', id: 'ivy' })
		conforms(V5.DocumentRef, added)
		await t.waitForStatus('ivy')
		conforms(V5.BatchAddResult, await t.json('POST', '/ns/shapes/document/batch', { documents: [{ content: 'x y' }] }))
		conforms(V5.Document, await t.json('GET', '/ns/shapes/document/ivy?include=chunks,memories'))
		conforms(V5.SearchResponse, await t.json('POST', '/ns/shapes/search', { query: 'lighthouse', threshold: 0 }))
		for (const type of ['documents', 'chunks', 'memories'])
			conforms(V5.ListResponse, await t.json('POST', `/ns/shapes/list/${type}`, {}))
		conforms(V5.ProfileResponse, await t.json('POST', '/ns/shapes/profile', {}))
		conforms(V5.ProfileBuckets, await t.json('GET', '/ns/shapes/profile/buckets'))
		conforms(V5.ForgetResult, await t.json('DELETE', '/ns/shapes/memories', { ids: ['nope'] }))
		conforms(V5.NamespaceList, await t.json('GET', '/ns'))
		conforms(V5.NamespaceDetails, await t.json('GET', '/ns/shapes'))
		conforms(V5.Organization, await t.json('GET', '/organization'))
		conforms(V5.ConnectorList, await t.json('GET', '/connectors'))
		conforms(V5.DeleteDocumentsResult, await t.json('DELETE', '/ns/shapes/document', { ids: ['ivy', 'gone'] }))
		conforms(V5.FeedbackAccepted, await t.json('POST', '/feedback', { type: 'docs', title: 'T', description: 'D' }))
	})
})
