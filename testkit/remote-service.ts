import { jsonOver, type ServiceClient } from './service.ts'

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
	return { key, request, json: jsonOver(request, key) }
}
