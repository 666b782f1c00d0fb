import { APICallError, RetryError } from 'ai'

/** One line saying what the endpoint answered, from the AI SDK's error types. */
export function describeError(error: unknown): string {
	if (RetryError.isInstance(error)) {
		const attempts = error.errors.length
		const last = describeError(error.lastError)
		return error.reason === 'maxRetriesExceeded' ? `${last} (gave up after ${attempts} attempts)` : last
	}
	if (APICallError.isInstance(error)) {
		return error.statusCode ? `HTTP ${error.statusCode}: ${error.message}` : error.message
	}
	return error instanceof Error ? error.message : String(error)
}
