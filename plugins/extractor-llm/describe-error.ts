import { APICallError, NoObjectGeneratedError, NoOutputGeneratedError, RetryError } from 'ai'

/** One line saying what went wrong with a model call, from the AI SDK's error types. */
export function describeError(error: unknown): string {
	if (RetryError.isInstance(error)) {
		const attempts = error.errors.length
		const last = describeError(error.lastError)
		return error.reason === 'maxRetriesExceeded' ? `${last} (gave up after ${attempts} attempts)` : last
	}
	if (APICallError.isInstance(error))
		return error.statusCode ? `HTTP ${error.statusCode}: ${error.message}` : error.message
	if (NoObjectGeneratedError.isInstance(error) || NoOutputGeneratedError.isInstance(error)) {
		const cause = error.cause instanceof Error ? `: ${error.cause.message.split('\n')[0]}` : ''
		return `invalid structured output${cause}`
	}
	return error instanceof Error ? error.message : String(error)
}
