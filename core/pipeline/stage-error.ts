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
