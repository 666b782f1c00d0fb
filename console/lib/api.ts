import { session } from './session.ts'

export { apiPath } from './api-path.ts'

/** An error answer of the API, with its own words: `{ error, details }`. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly error: string,
		readonly details?: string,
	) {
		super(details ? `${error}: ${details}` : error)
	}
}

export interface Timed<T> {
	body: T
	status: number
	/** Round trip as the browser saw it. */
	ms: number
	/** The server's own time (Server-Timing: app). */
	serverMs: number | null
}

/** Called when a signed-in key is refused (revoked or expired meanwhile). */
let onUnauthorized: (message: string) => void = () => {}
export function whenUnauthorized(handler: (message: string) => void) {
	onUnauthorized = handler
}

export async function request<T = any>(
	method: string,
	path: string,
	body?: unknown,
	key: string | null = session.key,
): Promise<Timed<T>> {
	const headers: Record<string, string> = { accept: 'application/json' }
	if (key) headers.authorization = `Bearer ${key}`
	let payload: BodyInit | undefined
	if (body instanceof FormData) payload = body
	else if (body !== undefined) {
		headers['content-type'] = 'application/json'
		payload = JSON.stringify(body)
	}
	const started = performance.now()
	let response: Response
	try {
		response = await fetch(path, { method, headers, body: payload })
	} catch {
		throw new ApiError(0, 'Network error', 'the service did not answer')
	}
	const text = await response.text()
	const ms = performance.now() - started
	const timing = /app;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')
	let parsed: any = null
	try {
		parsed = text ? JSON.parse(text) : null
	} catch {
		parsed = text
	}
	if (!response.ok) {
		const error = new ApiError(
			response.status,
			parsed?.error ?? response.statusText,
			typeof parsed?.details === 'string' ? parsed.details : undefined,
		)
		if (response.status === 401 && key && key === session.key) onUnauthorized(error.message)
		throw error
	}
	return { body: parsed as T, status: response.status, ms, serverMs: timing ? Number(timing[1]) : null }
}

export const api = {
	get: async <T = any>(path: string) => (await request<T>('GET', path)).body,
	post: async <T = any>(path: string, body?: unknown) => (await request<T>('POST', path, body ?? {})).body,
	patch: async <T = any>(path: string, body: unknown) => (await request<T>('PATCH', path, body)).body,
	delete: async <T = any>(path: string, body?: unknown) => (await request<T>('DELETE', path, body)).body,
}

export function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error)
}
