import type { RecordedStage } from '../domain/types.ts'
import { StageError } from '../errors.ts'

/** What each stage was doing, for a failure that has no reason in the user's terms. */
const STAGE_WORK: Record<RecordedStage, string> = {
	extracting: 'reading the content',
	chunking: 'splitting the text into chunks',
	embedding: 'embedding the text',
	indexing: 'publishing the chunks',
	memories: 'forming memories',
}

/**
 * The reason `document.error` shows for a failure: a StageError's own message, or for anything else (a TypeError
 * from a parser, a database error) what went wrong in the user's terms; the raw message belongs in the log.
 */
export function failureReason(stage: RecordedStage, error: unknown): string {
	if (error instanceof StageError) return error.message
	return `an internal error while ${STAGE_WORK[stage]}; the service log has the details`
}

/** The raw message, for the log. */
export function rawMessage(error: unknown): string {
	return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}
