import { ConnectorAuthError } from '../../core/index.ts'
import type { NoteDetail, NotesPage } from './types.ts'

/** Longest wait a Retry-After may ask for before the sync gives up instead. */
const MAX_RETRY_AFTER_MS = 60_000
const PAGE_SIZE = 30
const REQUEST_TIMEOUT_MS = 30_000

export interface ClientOptions {
	apiUrl: string
	apiKey: string
	minRequestIntervalMs: number
	maxRetries: number
	signal?: AbortSignal
}

/** The Granola API read with one key: requests spaced out, 429 and 5xx answers waited out and tried again. */
export class GranolaClient {
	private nextRequestAt = 0

	constructor(private readonly options: ClientOptions) {}

	/** One page of notes, oldest-first order not promised; `updatedAfter` lists only notes changed since. */
	async listNotes(query: { updatedAfter?: string | null; cursor?: string | null }): Promise<NotesPage> {
		const params = new URLSearchParams({ page_size: String(PAGE_SIZE) })
		if (query.updatedAfter) params.set('updated_after', query.updatedAfter)
		if (query.cursor) params.set('cursor', query.cursor)
		const page = (await this.get(`/v1/notes?${params}`)) as NotesPage | null
		return { notes: page?.notes ?? [], hasMore: page?.hasMore ?? false, cursor: page?.cursor ?? null }
	}

	/** Every page of a listing. */
	async *allNotes(updatedAfter: string | null) {
		let cursor: string | null = null
		do {
			const page = await this.listNotes({ updatedAfter, cursor })
			yield* page.notes
			cursor = page.hasMore && page.cursor ? page.cursor : null
		} while (cursor)
	}

	/** A note with its transcript, or null when it is gone (or no longer visible: still processing). */
	async note(id: string): Promise<NoteDetail | null> {
		return (await this.get(`/v1/notes/${encodeURIComponent(id)}?include=transcript`)) as NoteDetail | null
	}

	private async get(path: string): Promise<unknown> {
		for (let attempt = 0; ; attempt++) {
			await this.pace()
			let response: Response
			try {
				response = await fetch(`${this.options.apiUrl}${path}`, {
					headers: { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json' },
					signal: this.options.signal
						? AbortSignal.any([this.options.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)])
						: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
				})
			} catch (error) {
				if (this.options.signal?.aborted || attempt >= this.options.maxRetries) {
					throw new Error(`Could not reach Granola API: ${(error as Error).message}`)
				}
				await this.wait(backoff(attempt))
				continue
			}
			if (response.ok) return await response.json()
			await response.body?.cancel()
			if (response.status === 401 || response.status === 403) {
				throw new ConnectorAuthError('Granola refused the API key (invalid, expired or disabled)')
			}
			if (response.status === 404) return null
			const retryable = response.status === 429 || response.status >= 500
			if (!retryable || attempt >= this.options.maxRetries) {
				throw new Error(`Granola API answered HTTP ${response.status} for ${path.split('?')[0]}`)
			}
			const asked = retryAfterMs(response.headers.get('retry-after'))
			if (asked !== null && asked > MAX_RETRY_AFTER_MS) {
				throw new Error(`Granola API asked to wait ${Math.round(asked / 1000)} s; try the sync later`)
			}
			await this.wait(asked ?? backoff(attempt))
		}
	}

	/** Keeps requests at least the minimum interval apart. */
	private async pace(): Promise<void> {
		const now = Date.now()
		const at = Math.max(now, this.nextRequestAt)
		this.nextRequestAt = at + this.options.minRequestIntervalMs
		if (at > now) await this.wait(at - now)
	}

	private async wait(ms: number): Promise<void> {
		await Bun.sleep(ms)
		this.options.signal?.throwIfAborted()
	}
}

const backoff = (attempt: number) => Math.min(500 * 2 ** attempt, 10_000)

/** Retry-After in seconds or as an HTTP date, in milliseconds; null when absent or unreadable. */
export function retryAfterMs(header: string | null): number | null {
	if (!header) return null
	const seconds = Number(header)
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
	const date = Date.parse(header)
	return Number.isNaN(date) ? null : Math.max(0, date - Date.now())
}
