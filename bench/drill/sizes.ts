import { chunkedJson, rawRequest } from '../../testkit/raw-http.ts'

const MiB = 1024 * 1024

export interface SizeRow {
	tried: string
	expected: string
	observed: string
	ok: boolean
}

const isJsonError = (headers: Record<string, string>, body: string) => {
	try {
		return (headers['content-type'] ?? '').includes('application/json') && typeof JSON.parse(body).error === 'string'
	} catch {
		return false
	}
}

/** Oversized and over-nested requests: each must be the JSON error, and nothing may be stored. */
export async function sizeRefusals(url: string, key: string, count: () => Promise<number>): Promise<SizeRow[]> {
	const head = (method: string, path: string, headers: Record<string, string | number>) =>
		`${method} ${path} HTTP/1.1\r\nhost: drill\r\nauthorization: Bearer ${key}\r\n${Object.entries(headers)
			.map(([name, value]) => `${name}: ${value}\r\n`)
			.join('')}\r\n`
	const rows: SizeRow[] = []
	const before = await count()
	const chunked = await rawRequest(
		url,
		head('POST', '/v3/documents', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
		chunkedJson(40 * MiB),
	)
	const stored = (await count()) - before
	rows.push({
		tried: '40 MiB JSON body, chunked (no Content-Length)',
		expected: 'JSON 413, nothing stored',
		observed: `${chunked.status}${isJsonError(chunked.headers, chunked.body) ? ' JSON' : ' not JSON'}, ${stored} stored`,
		ok: chunked.status === 413 && isJsonError(chunked.headers, chunked.body) && stored === 0,
	})
	const huge = await fetch(`${url}/v3/documents`, {
		method: 'POST',
		headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
		body: new Uint8Array(130 * MiB).fill(0x20),
	}).catch((error: Error) => new Response(error.message, { status: 599 }))
	const hugeBody = await huge.text()
	const hugeHeaders = { 'content-type': huge.headers.get('content-type') ?? '' }
	rows.push({
		tried: '130 MiB body (above the runtime default limit)',
		expected: 'JSON 413',
		observed: `${huge.status}${isJsonError(hugeHeaders, hugeBody) ? ' JSON' : ' not JSON'}`,
		ok: huge.status === 413 && isJsonError(hugeHeaders, hugeBody),
	})
	const header = await rawRequest(url, head('GET', '/health', { 'x-padding': 'p'.repeat(60_000) }))
	rows.push({
		tried: '60 KB header',
		expected: 'JSON 431',
		observed: `${header.status}${isJsonError(header.headers, header.body) ? ' JSON' : ' not JSON'}`,
		ok: header.status === 431 && isJsonError(header.headers, header.body),
	})
	const started = performance.now()
	const nested = await fetch(`${url}/v3/documents`, {
		method: 'POST',
		headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
		body: '['.repeat(100_000) + ']'.repeat(100_000),
	})
	const nestedBody = await nested.text()
	const took = performance.now() - started
	rows.push({
		tried: '200 KB of nested brackets',
		expected: '400 fast, value not echoed',
		observed: `${nested.status} in ${Math.round(took)} ms, ${nestedBody.length} bytes`,
		ok: nested.status === 400 && nestedBody.length < 500,
	})
	const noKey = await fetch(`${url}/v3/documents/file`, {
		method: 'POST',
		headers: { 'content-type': 'multipart/form-data; boundary=x' },
		body: 'not multipart',
	})
	rows.push({
		tried: 'POST /v3/documents/file, no key, broken form',
		expected: '401',
		observed: String(noKey.status),
		ok: noKey.status === 401,
	})
	return rows
}
