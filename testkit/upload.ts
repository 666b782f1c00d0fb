import type { TestService } from './service.ts'

/** POSTs a multipart upload to /v3/documents/file the way a browser or the published client does. */
export async function upload(
	t: TestService,
	file: { bytes: Uint8Array; name: string; type?: string },
	fields: Record<string, string> = {},
	key: string = t.key,
): Promise<{ status: number; body: any }> {
	const form = new FormData()
	form.append('file', new File([file.bytes], file.name, { type: file.type ?? '' }))
	for (const [name, value] of Object.entries(fields)) form.append(name, value)
	const request = new Request('http://localhost/v3/documents/file', { method: 'POST', body: form })
	// Read before the body: Bun drops a form body's content type once the body is consumed.
	const contentType = request.headers.get('content-type')!
	// As a real client sends it: the multipart body with its length.
	const body = new Uint8Array(await request.arrayBuffer())
	const response = await t.service.app!.handle(
		new Request('http://localhost/v3/documents/file', {
			method: 'POST',
			body,
			headers: {
				'content-type': contentType,
				'content-length': String(body.length),
				authorization: `Bearer ${key}`,
			},
		}),
	)
	const text = await response.text()
	return { status: response.status, body: text ? JSON.parse(text) : null }
}

/** GETs a URL of the service in-process (path and query only: the host is the test's). */
export function getPath(t: TestService, url: string): Promise<Response> {
	const parsed = new URL(url)
	return t.service.app!.handle(new Request(`http://localhost${parsed.pathname}${parsed.search}`))
}
