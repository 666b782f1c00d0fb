import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { sampleFromSchema } from '../../testkit/swagger-sample.ts'

interface Operation {
	method: string
	path: string
	spec: any
}

/** Destructive operations go last, so the others find what they act on. */
function order(op: Operation): number {
	if (op.path === '/v3/settings/reset') return 3
	if (op.method === 'delete' && op.path.includes('{')) return 2
	if (op.method === 'delete') return 1
	return 0
}

/**
 * Every operation of /openapi.json sent with the body and parameters Swagger UI fills in for "Try it out"
 * (testkit/swagger-sample.ts), with a valid key. Path parameters are what a user would type: ids of things
 * that exist. No answer may be a 4xx: the example alone must be a request the service accepts.
 */
describe('OpenAPI examples as Swagger UI fills them in', () => {
	let t: TestService
	let spec: any
	const pathValues: Record<string, string> = {}
	const queryValues: Record<string, string> = {}
	let fileDocumentId = ''
	// Path parameters that must name something particular: a failed document to retry, a key to revoke.
	const specificPathValues: Record<string, Record<string, string>> = {}

	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: null })
		spec = await (await t.request('GET', '/openapi.json', { key: null })).json()
		const added = await t.json('POST', '/v3/documents', {
			content: 'Tomatoes need six hours of sun.',
			containerTag: 'a',
		})
		await t.waitForStatus(added.body.id)
		const form = new FormData()
		form.set('file', new File(['Pier four opens at dawn.'], 'pier.txt', { type: 'text/plain' }))
		form.set('containerTag', 'a')
		const upload = await t.service.app!.handle(
			new Request('http://localhost/v3/documents/file', {
				method: 'POST',
				headers: { authorization: `Bearer ${t.key}` },
				body: form,
			}),
		)
		const uploaded = (await upload.json()) as { id: string }
		await t.waitForStatus(uploaded.id)
		const fileUrl = new URL((await t.json('GET', `/v3/documents/${uploaded.id}/file-url`)).body.url)
		const [, , , documentId, name] = fileUrl.pathname.split('/')
		await t.json('POST', '/v3/documents', { content: 'Pier five is closed.', containerTag: 'b' })
		// Refused before any fetch (a loopback address), so it fails: what a retry is for.
		const failing = await t.json('POST', '/v3/documents', { content: 'http://127.0.0.1:1/notes', containerTag: 'b' })
		await t.waitForStatus(failing.body.id)
		const key = await t.json('POST', '/v3/keys', { name: 'to revoke' })
		specificPathValues['/retry'] = { id: failing.body.id }
		specificPathValues['/v3/keys/{keyId}'] = { keyId: key.body.id }
		// v5 reads what v3 and v4 wrote: the document of tag "a" and a memory of it, by namespace.
		specificPathValues['/ns/{namespace}/document/{id}'] = { namespace: 'a', id: added.body.id }
		const memory = await t.json('POST', '/v4/memories', {
			containerTag: 'a',
			memories: [{ content: 'Pier five is closed' }],
		})
		// A file replaces a document added with a caller id.
		await t.json('POST', '/ns/a/document', { content: 'Pier six opens at noon.', id: 'pier_report' })
		specificPathValues['/document/file/{id}'] = { namespace: 'a', id: 'pier_report' }
		specificPathValues['/ns/{namespace}/memories/{id}'] = { namespace: 'a', id: memory.body.memories[0].id }
		const merge = await t.json('POST', '/v3/container-tags/merge', { containerTags: ['b'], targetContainerTag: 'a' })
		expect(merge.status).toBe(202)
		fileDocumentId = uploaded.id
		Object.assign(pathValues, { id: added.body.id, containerTag: 'a', mergeId: merge.body.mergeId, documentId, name })
		Object.assign(queryValues, Object.fromEntries(fileUrl.searchParams))
	}, 240_000)
	afterAll(() => t.stop())

	it('answers every operation example without a 4xx', async () => {
		// Connection operations act on a provider (an OAuth grant, a signed delivery, chosen repositories), which an
		// example cannot stand for; tests/connectors/github.test.ts sends each of them against the GitHub emulator, and
		// tests/v5/connectors.test.ts the v5 connector operations against the web crawler and Granola emulators.
		const operations: Operation[] = Object.entries<any>(spec.paths)
			.filter(([path]) => !/^\/v3\/connections|^\/ns\/\{namespace\}\/connectors/.test(path))
			.flatMap(([path, item]) =>
				Object.entries<any>(item).map(([method, operation]) => ({ method, path, spec: operation })),
			)
		operations.sort((a, b) => order(a) - order(b))
		const refused: string[] = []
		for (const { method, path, spec: operation } of operations) {
			const response = await send(method, path, operation)
			if (response.status >= 400) refused.push(`${method.toUpperCase()} ${path}: ${response.status} ${response.body}`)
		}
		expect(refused).toEqual([])
		expect(operations.length).toBeGreaterThan(30)
	}, 60_000)

	it('gives every tag an operation uses a description', () => {
		const described = new Map<string, string>(spec.tags.map((tag: any) => [tag.name, tag.description]))
		const used = new Set<string>(
			Object.values<any>(spec.paths).flatMap((item) => Object.values<any>(item).flatMap((op) => op.tags ?? [])),
		)
		expect(used.size).toBeGreaterThan(5)
		expect([...used].filter((tag) => !described.get(tag))).toEqual([])
	})

	it('names the field the user sent in a validation error', async () => {
		const cases: [string, string, unknown, string][] = [
			['POST', '/v3/search', { q: 'milk', limit: '0' }, 'limit: must be an integer from 1 to 100'],
			['POST', '/v3/search', { q: 'milk', limit: 0 }, 'limit: must be an integer from 1 to 100'],
			['POST', '/v4/search', { q: 'milk', limit: '0' }, 'limit: must be an integer from 1 to 100'],
			['POST', '/v4/search', { q: 'milk', threshold: '2' }, 'threshold: must be a number from 0 to 1'],
			['POST', '/v4/memories/forget-matching', { containerTag: 'a', maxForget: '0' }, 'maxForget: must be an integer'],
			['PATCH', '/v3/settings', { chunkSize: '50' }, 'chunkSize: must be an integer from 100 to 10000'],
			['POST', '/v3/documents/list', { limit: 'ten' }, 'limit: must be a positive integer'],
		]
		for (const [method, path, body, details] of cases) {
			const response = await t.json(method, path, body)
			expect([path, response.status, response.body.details]).toEqual([path, 400, expect.stringContaining(details)])
		}
	})

	async function send(method: string, path: string, operation: any) {
		let url = path
		const query = new URLSearchParams()
		for (const parameter of operation.parameters ?? []) {
			const example = parameter.example ?? sampleFromSchemaIfFilled(parameter.schema)
			if (parameter.in === 'path') {
				const specific = Object.entries(specificPathValues).find(([suffix]) => path.endsWith(suffix))?.[1]
				const value = path.endsWith('/file-url')
					? fileDocumentId
					: (specific?.[parameter.name] ?? pathValues[parameter.name] ?? example)
				url = url.replace(`{${parameter.name}}`, value)
			} else if (parameter.in === 'query') {
				const value = queryValues[parameter.name] ?? example
				if (value !== undefined) query.set(parameter.name, String(value))
			}
		}
		if (query.size > 0) url += `?${query}`
		const headers: Record<string, string> = { authorization: `Bearer ${t.key}` }
		let body: string | FormData | undefined
		const content = operation.requestBody?.content ?? {}
		if (content['application/json']) {
			body = JSON.stringify(sampleFromSchema(content['application/json'].schema))
			headers['content-type'] = 'application/json'
		} else if (content['multipart/form-data']) {
			// Swagger UI shows a form field per property, each filled in with that property's sample; the user picks
			// the file.
			const form = new FormData()
			for (const [name, schema] of Object.entries<any>(content['multipart/form-data'].schema.properties)) {
				const value = sampleFromSchema(schema)
				if (schema.format === 'binary') form.set(name, new File(['Ferry notes.'], 'notes.txt'))
				else form.set(name, typeof value === 'string' ? value : JSON.stringify(value))
			}
			body = form
		}
		const response = await t.service.app!.handle(new Request(`http://localhost${url}`, { method, headers, body }))
		return { status: response.status, body: (await response.text()).slice(0, 300) }
	}
})

/** Swagger UI fills a parameter's field only from its examples or default; other fields start empty. */
function sampleFromSchemaIfFilled(schema: any): unknown {
	if (!schema) return undefined
	const filled = schema.examples?.[0] ?? schema.default ?? schema.example
	return filled === undefined ? undefined : sampleFromSchema(schema)
}
