import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import ipaddr from 'ipaddr.js'
import { bareHost, embeddedIPv4, parseAllowList, refusal } from '../../core/pipeline/extract/url-guard.ts'
import { runCorpus } from '../../testkit/hostile/corpus.ts'
import { HOSTILE_VALUES, UNSTORABLE_VALUES } from '../../testkit/hostile/hostile-values.ts'
import { operationsOf } from '../../testkit/hostile/operations.ts'
import type { Send } from '../../testkit/hostile/send.ts'
import { ssrfTargets } from '../../testkit/hostile/ssrf.ts'
import { runTenantFuzz } from '../../testkit/hostile/tenants.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** A Send through the real app without a socket. */
function sendThrough(t: TestService, defaultKey: string): Send {
	return (method, path, { body, key = defaultKey, headers = {} } = {}) =>
		t.service.app!.handle(
			new Request(`http://localhost${path}`, {
				method,
				headers: {
					...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
					...(key ? { authorization: `Bearer ${key}` } : {}),
					...headers,
				},
				body,
			}),
		)
}

describe('hostile input (the fast part of the drill)', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: null })
	}, 120_000)
	afterAll(() => t.stop())

	const operations = async () =>
		operationsOf((await (await t.request('GET', '/openapi.json')).json()) as Record<string, unknown>)

	it('walks every operation: NUL and unpaired surrogates in any field or parameter get a 400 naming it', async () => {
		const all = await operations()
		expect(all.length).toBeGreaterThan(30)
		const result = await runCorpus(sendThrough(t, t.key), all, UNSTORABLE_VALUES)
		expect(result.findings).toEqual([])
		expect(result.tried).toBeGreaterThan(500)
	}, 300_000)

	it('answers injection, traversal and oversized strings in every field without a 5xx or a non-JSON error', async () => {
		const values = HOSTILE_VALUES.filter((v) =>
			['SQL injection', 'path traversal', 'percent-encoded NUL'].includes(v.name),
		)
		const result = await runCorpus(sendThrough(t, t.key), await operations(), values)
		expect(result.findings).toEqual([])
	}, 300_000)

	it('names the field for the cases that used to answer 500', async () => {
		const cases: [string, string, unknown, string][] = [
			['POST', '/v3/documents', { content: 'x', customId: 'a\u0000b' }, 'customId'],
			['POST', '/v3/documents', { content: 'x', containerTag: 'a\u0000' }, 'containerTag'],
			['POST', '/v3/documents', { content: 'x', containerTags: ['ok', '\ud800'] }, 'containerTags[1]'],
			['POST', '/v3/documents', { content: 'x', metadata: { 'k\u0000': 'v' } }, 'metadata (a key)'],
			['POST', '/v3/documents', { content: 'x', metadata: { k: 'v\u0000' } }, 'metadata.k'],
			['POST', '/v3/search', { q: 'x', filters: { AND: [{ key: 'a', value: '\udc00' }] } }, 'filters.AND[0].value'],
			['POST', '/v4/search', { q: 'x', filterPrompt: '\ud800' }, 'filterPrompt'],
			['GET', '/v3/documents/abc%00def', undefined, 'id'],
		]
		for (const [method, path, body, field] of cases) {
			const response = await t.json(method, path, body)
			expect(response.status).toBe(400)
			expect(response.body.details).toStartWith(`${field}: must not contain NUL`)
		}
	})

	it('holds JSON text inside form fields and filter strings to the same depth and text rules as a body', async () => {
		const send = sendThrough(t, t.key)
		const deep = `${'['.repeat(100)}${']'.repeat(100)}`
		// The multipart parser reads JSON-looking fields itself: a deep one fails validation, without echoing the value.
		for (const [metadata, expected] of [
			[deep, 'metadata: '],
			['{"k":"v\\u0000"}', 'metadata.k: must not contain NUL'],
		] as const) {
			const form = new FormData()
			form.set('file', new File(['drill text'], 'drill.txt', { type: 'text/plain' }))
			form.set('metadata', metadata)
			const response = await send('POST', '/v3/documents/file', { body: form })
			expect(response.status).toBe(400)
			const { details } = (await response.json()) as { details: string }
			expect(details).toStartWith(expected)
			expect(details.length).toBeLessThan(300)
		}
		const response = await t.json('POST', '/v3/search', { q: 'x', filters: '{"AND":[{"key":"a","value":"\\ud800"}]}' })
		expect(response.status).toBe(400)
		expect(response.body.details).toStartWith('filters.AND[0].value: must not contain NUL')
	})

	it('keeps one organization out of another: ids, customIds, tags and guessed ids show and change nothing', async () => {
		const other = await t.createKey('tenant-b')
		const result = await runTenantFuzz(sendThrough(t, t.key), sendThrough(t, other), (id) => t.waitForStatus(id))
		expect(result.findings).toEqual([])
		expect(result.tried).toBeGreaterThan(40)
	}, 120_000)
})

describe('SSRF guard over IPv6 forms that carry IPv4', () => {
	const none = parseAllowList([])
	it('refuses every literal address of the drill set, judging embedded IPv4 by the IPv4 rules', () => {
		for (const target of ssrfTargets(8080)) {
			const host = bareHost(new URL(target.url))
			if (!ipaddr.isValid(host)) continue
			expect({ target: target.name, refusal: refusal(host, host, none) }).toMatchObject({
				refusal: expect.any(String),
			})
		}
	})

	it('finds the IPv4 address in each embedding form', () => {
		const cases: [string, string[]][] = [
			['::7f00:1', ['127.0.0.1']],
			['::ffff:0:10.1.2.3', ['10.1.2.3']],
			['64:ff9b::192.168.1.1', ['192.168.1.1']],
			['64:ff9b:1:a00:0:100::', ['10.0.0.1', '0.0.0.0']],
			['2002:a9fe:a9fe::1', ['169.254.169.254']],
			['2001:0:4136:e378:8000:63bf:80ff:fffe', ['65.54.227.120', '127.0.0.1']],
			['2606:2800:220:1:248:1893:25c8:1946', []],
		]
		for (const [address, carried] of cases) {
			expect(embeddedIPv4(ipaddr.IPv6.parse(address)).map(String)).toEqual(carried)
		}
	})

	it('lets an embedding form through when the IPv4 it carries is public, and honours the allow-list', () => {
		expect(refusal('64:ff9b::93.184.216.34', 'x', none)).toBeNull()
		expect(refusal('2002:5db8:d822::1', 'x', none)).toBeNull()
		expect(refusal('::127.0.0.1', 'x', parseAllowList(['127.0.0.0/8']))).toBeNull()
		expect(refusal('::1', 'x', parseAllowList(['::1']))).toBeNull()
		expect(refusal('64:ff9b::169.254.169.254', 'x', parseAllowList(['0.0.0.0/0']))).toContain('cloud-metadata')
	})
})
