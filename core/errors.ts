/** An error a user can act on. Routes turn it into `{ error, details }` with its status; nothing else leaks. */
export class HttpError extends Error {
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

export const badRequest = (details: string) => new HttpError(400, 'Invalid request parameters', details)
export const notFound = (what: string) => new HttpError(404, `${what} not found`)

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
