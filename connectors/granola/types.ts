/** Granola's public API, as far as the connector reads it (`GET /v1/notes`, `GET /v1/notes/{id}`). */

export interface GranolaPerson {
	name?: string | null
	email?: string | null
}

export interface NoteSummary {
	id: string
	title?: string | null
	owner?: GranolaPerson | null
	created_at: string
	updated_at: string
}

export interface NotesPage {
	notes: NoteSummary[]
	hasMore?: boolean
	cursor?: string | null
}

export interface TranscriptEntry {
	/** `microphone` is the note's owner; `speaker` is everyone else, told apart by the diarization label if any. */
	speaker?: { source?: string | null; diarization_label?: string | null } | null
	text: string
	start_time?: string | null
	end_time?: string | null
}

export interface NoteDetail extends NoteSummary {
	attendees?: GranolaPerson[] | null
	calendar_event?: Record<string, unknown> | null
	summary_text?: string | null
	summary_markdown?: string | null
	web_url?: string | null
	transcript?: TranscriptEntry[] | null
}

export interface GranolaOptions {
	/** API root. Default `https://public-api.granola.ai`. */
	apiUrl?: string
	/** Hours between scheduled syncs. Default 4; null: on demand only. */
	syncEveryHours?: number | null
	/** Least time between two requests, in milliseconds (the API sustains 5 a second). Default 200. */
	minRequestIntervalMs?: number
	/** How often a rate-limited or failing request is tried again before the sync gives up. Default 5. */
	maxRetries?: number
}

/**
 * The day before the last sync's listing started (`YYYY-MM-DD`): the next sync lists the notes updated after it, so an
 * edit made while a listing paged on, or by a clock a little off, is still listed next time.
 */
export type GranolaCursor = {
	updatedAfter: string | null
	/** Ids held but missing from the last full listing (one JSON array): deleted if missing again. */
	missing?: string
}
