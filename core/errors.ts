/**
 * An error a user can act on, thrown by services, the connector runtime and storage alike. Its status is the HTTP one
 * the REST API answers with (`{ error, details }`; nothing else leaks); MCP turns it into a tool error.
 */
export class ServiceError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly details?: string,
		/** Extra response headers, such as Retry-After on a 429. */
		readonly headers: Record<string, string> = {},
	) {
		super(message)
	}
}

export const badRequest = (details: string) => new ServiceError(400, 'Invalid request parameters', details)
export const notFound = (what: string) => new ServiceError(404, `${what} not found`)

/** A configuration or startup problem: the process prints the message and exits, without a stack trace. */
export class StartupError extends Error {}
/**
 * A failure said in the user's terms: its message is what `document.error` shows. Retried unless `permanent`.
 * Any other error is an internal one: the document shows a reason for its stage, the log keeps the raw message.
 */
export class StageError extends Error {
	constructor(
		message: string,
		readonly permanent: boolean = false,
	) {
		super(message)
	}
}

/** Thrown by a stage when retrying cannot help (bad content, unsupported type): the document fails at once. */
export class PermanentStageError extends StageError {
	constructor(message: string) {
		super(message, true)
	}
}
