/** A request to the service under test: over the network (the drill) or through `app.handle` (the tests). */
export type Send = (
	method: string,
	path: string,
	options?: { body?: string | FormData; key?: string | null; headers?: Record<string, string> },
) => Promise<Response>

/** A Send to a listening server. */
export function sendTo(baseUrl: string, defaultKey: string): Send {
	return (method, path, { body, key = defaultKey, headers = {} } = {}) =>
		fetch(`${baseUrl}${path}`, {
			method,
			headers: {
				...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
				...(key ? { authorization: `Bearer ${key}` } : {}),
				...headers,
			},
			body,
		})
}

/** What came back, read once: the status, whether an error was the JSON `{ error, details? }`, and the text. */
export async function observe(response: Response) {
	const text = await response.text()
	let error: { error?: unknown; details?: unknown } | null = null
	try {
		error = JSON.parse(text)
	} catch {}
	// v3/v4 `{ error, details }`; v5's validation errors `{ success: false, error: [{ message, path }] }`.
	const issues = Array.isArray(error?.error) ? (error.error as { message?: unknown }[]) : null
	const v5Validation = issues !== null && issues.length > 0 && issues.every((i) => typeof i?.message === 'string')
	const jsonError =
		response.status < 400 ||
		((response.headers.get('content-type') ?? '').includes('application/json') &&
			(typeof error?.error === 'string' || v5Validation))
	const details = v5Validation
		? issues.map((issue) => issue.message).join('; ')
		: typeof error?.details === 'string'
			? error.details
			: ''
	return { status: response.status, jsonError, details, text }
}
