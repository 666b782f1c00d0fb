import { Elysia, ValidationError } from 'elysia'
import { ServiceError } from '../errors.ts'
import type { Logger } from '../logger.ts'
import { issuesOf, isV5Path, V5ValidationError, validationBody } from './v5/errors.ts'

export function errorBody(error: string, details?: string): { error: string; details?: string } {
	return details === undefined ? { error } : { error, details }
}

/** The request's path, even when its url is not absolute (a malformed Host). */
const pathOf = (request: Request) =>
	URL.canParse(request.url) ? new URL(request.url).pathname : request.url.split('?')[0]

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
	// The published client retries 408, 409 and 429 unless told not to; only a 429 gets better by waiting.
	const retry: Record<string, string> = status < 500 && status !== 429 ? { 'x-should-retry': 'false' } : {}
	return new Response(JSON.stringify(body), {
		status,
		headers: { 'content-type': 'application/json', ...retry, ...headers },
	})
}

/** `a/b/0` → `a.b[0]` so a validation message names the field the way the user wrote it. */
function fieldName(path: string, scope: string): string {
	const parts = path.split('/').filter(Boolean)
	if (parts.length === 0) return scope === 'body' ? 'body' : scope
	return parts.map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`)).join('')
}

export function describeValidationError(error: ValidationError): string {
	const first = error.all[0] as { path?: string; message?: string; schema?: { error?: unknown } } | undefined
	if (!first) return `invalid ${error.type}`
	const custom = first.schema?.error
	const message = typeof custom === 'string' ? custom : (first.message ?? 'is invalid')
	return `${fieldName(first.path ?? '', error.type)}: ${message}`
}

/** Every error leaves as JSON `{ error, details }`; unexpected ones are logged and answered without internals. */
export function errorHandling(logger: Logger) {
	return new Elysia({ name: 'error-handling' }).onError({ as: 'global' }, ({ code, error: raised, request }) => {
		// Elysia wraps whatever a body parser throws; our own parser throws HttpErrors worth keeping.
		const cause = (raised as { cause?: unknown }).cause
		const error = code === 'PARSE' && cause instanceof ServiceError ? cause : raised
		if (error instanceof ServiceError) {
			return jsonResponse(error.status, errorBody(error.message, error.details), error.headers)
		}
		if (error instanceof V5ValidationError) return jsonResponse(400, validationBody(error.issues))
		if (error instanceof ValidationError) {
			// v5 answers a schema failure with its ValidationErrorResponse, v3/v4 with `{ error, details }`.
			if (isV5Path(new URL(request.url).pathname)) return jsonResponse(400, validationBody(issuesOf(error)))
			return jsonResponse(400, errorBody('Invalid request parameters', describeValidationError(error)))
		}
		switch (code) {
			case 'NOT_FOUND':
				return jsonResponse(404, errorBody('Not found', `${request.method} ${pathOf(request)} is not a route`))
			case 'PARSE':
				return jsonResponse(400, errorBody('Invalid request body', 'the body could not be parsed (malformed JSON?)'))
			default: {
				const status = (error as { status?: number }).status
				if (typeof status === 'number' && status >= 400 && status < 500) {
					return jsonResponse(status, errorBody('Invalid request', (error as Error).message))
				}
				logger.error('unhandled error', {
					method: request.method,
					path: pathOf(request),
					error: error instanceof Error ? (error.stack ?? error.message) : String(error),
				})
				return jsonResponse(500, errorBody('Internal server error'))
			}
		}
	})
}
