import { type AllowList, FetchError, type Fetched, fetchUrl } from '../../core/index.ts'

export interface Validators {
	etag?: string | null
	lastModified?: string | null
}

export type FetchOutcome =
	| { type: 'fetched'; fetched: Fetched }
	| { type: 'unchanged' }
	/** The server says the page is gone (404, 410). */
	| { type: 'gone'; status: number }
	/** Trying again cannot help: a refused address, another client error, too large. */
	| { type: 'refused'; error: string }
	/** The host did not answer properly (network, timeout, 5xx): may pass. */
	| { type: 'unavailable'; error: string }

/**
 * The crawler's only way out: the service's guarded fetch (every hop checked against the SSRF rules and the
 * allow-list), one request at a time, the next one no sooner than the delay after the previous one.
 */
export class PoliteFetcher {
	/** When the last answer ended; the next request waits the delay from then. */
	private lastAt = 0
	/** Raised to a robots.txt Crawl-delay. */
	delayMs: number

	constructor(
		private readonly options: {
			allow: AllowList
			userAgent: string
			delayMs: number
			maxBytes: number
			timeoutMs: number
			signal: AbortSignal
		},
	) {
		this.delayMs = options.delayMs
	}

	async get(url: string, validators: Validators = {}): Promise<FetchOutcome> {
		await this.pace()
		const headers: Record<string, string> = { 'user-agent': this.options.userAgent }
		if (validators.etag) headers['if-none-match'] = validators.etag
		if (validators.lastModified) headers['if-modified-since'] = validators.lastModified
		try {
			const fetched = await fetchUrl(url, {
				allow: this.options.allow,
				maxBytes: this.options.maxBytes,
				timeoutMs: this.options.timeoutMs,
				headers,
			})
			return { type: 'fetched', fetched }
		} catch (error) {
			if (!(error instanceof FetchError)) return { type: 'unavailable', error: (error as Error).message }
			if (error.status === 304) return { type: 'unchanged' }
			if (error.status === 404 || error.status === 410) return { type: 'gone', status: error.status }
			return error.permanent ? { type: 'refused', error: error.message } : { type: 'unavailable', error: error.message }
		} finally {
			this.lastAt = Date.now()
		}
	}

	private async pace(): Promise<void> {
		this.options.signal.throwIfAborted()
		const wait = this.lastAt + this.delayMs - Date.now()
		if (wait > 0) await Bun.sleep(wait)
		this.options.signal.throwIfAborted()
	}
}
