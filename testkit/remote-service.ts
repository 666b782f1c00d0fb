import type { ServiceClient } from './service.ts'

/** A service running as its own process (testkit/process.ts), called over real HTTP as TestService calls one in-process. */
export function remoteService(url: string, key: string): ServiceClient {
	const request: ServiceClient['request'] = (method, path, { body, key: useKey = key, headers = {} } = {}) =>
		fetch(`${url}${path}`, {
			method,
			// As `app.handle` answers: a redirect is the test's to follow.
			redirect: 'manual',
			headers: {
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
				...(useKey ? { authorization: `Bearer ${useKey}` } : {}),
				...headers,
			},
			body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
		})
	const json: ServiceClient['json'] = async (method, path, body, useKey) => {
		const response = await request(method, path, { body, key: useKey ?? key })
		const text = await response.text()
		return { status: response.status, body: text ? JSON.parse(text) : null }
	}
	return { key, request, json }
}
