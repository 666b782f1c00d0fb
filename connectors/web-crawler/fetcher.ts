import {
	type AllowList,
	FetchError,
	type Fetched,
	fetchUrl,
	type Resolver,
	type SyncContext,
} from '../../core/index.ts'

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
	| { type: 'refused'; error: string; status: number | null }
	/** The host did not answer properly (network, timeout, 5xx): may pass. */
	| { type: 'unavailable'; error: string }

/** Tries of one URL the host answered 429 or 503 (after waiting what it asked). */
const BUSY_TRIES = 3

/**
 * Each host's pacing, shared by every crawl in this process, so two connections crawling one site take turns rather
 * than doubling its load: when its last answer ended, no request before `notBefore` (a Retry-After), and whether a
 * request is in flight. With the store's shared turns (`SyncContext.turns`), worker processes take turns too.
 */
const hosts = new Map<string, { lastAt: number; notBefore: number; busy: boolean }>()
const hostOf = (host: string) => {
	const state = hosts.get(host) ?? { lastAt: 0, notBefore: 0, busy: false }
	hosts.set(host, state)
	return state
}

/**
 * The crawler's only way out: the service's guarded fetch (every hop checked against the SSRF rules and the
 * allow-list, and against the crawl's own rules before a redirect is followed), one request at a time per host,
 * the next one no sooner than the delay after the previous answer; a 429 or 503 waits what `Retry-After` asks (RFC
 * 9110 §10.2.3) up to `maxWaitMs`, else backs off, before the URL is tried again.
 */
export class PoliteFetcher {
	/** Raised to a robots.txt Crawl-delay. */
	delayMs: number
	/** Checked before a redirect is followed: robots rules and scope. */
	followRedirect: ((to: URL) => boolean) | undefined
	/** Requests made, redirects aside. */
	requests = 0

	constructor(
		private readonly options: {
			allow: AllowList
			userAgent: string
			delayMs: number
			maxBytes: number
			timeoutMs: number
			signal: AbortSignal
			/** Longest Retry-After waited out. */
			maxWaitMs?: number
			resolve?: Resolver
			/** Turns shared across processes: when given, each host's pacing is kept in the store. */
			turns?: SyncContext['turns']
		},
	) {
		this.delayMs = options.delayMs
	}

	/** `keepFirstBytes`: a larger body is cut there and kept rather than refused. */
	async get(url: string, validators: Validators = {}, keepFirstBytes?: number): Promise<FetchOutcome> {
		const host = new URL(url).host
		for (let attempt = 1; ; attempt++) {
			const outcome = await this.once(url, host, validators, attempt, keepFirstBytes)
			if (outcome.type !== 'busy') return outcome.outcome
			if (outcome.giveUp) return { type: 'unavailable', error: outcome.error }
		}
	}

	/** The wait a 429 or 503 asks for (or a back-off), and whether it is too long to wait or tries are used up. */
	private busyWait(retryAfter: string | null, attempt: number): { wait: number; giveUp: boolean } {
		const wait = retryAfterMs(retryAfter) ?? Math.max(this.delayMs, 1000) * 2 ** attempt
		return { wait, giveUp: attempt >= BUSY_TRIES || wait > (this.options.maxWaitMs ?? 300_000) }
	}

	private async once(
		url: string,
		host: string,
		validators: Validators,
		attempt: number,
		keepFirstBytes: number | undefined,
	): Promise<{ type: 'done'; outcome: FetchOutcome } | { type: 'busy'; error: string; giveUp: boolean }> {
		await this.turn(host)
		let nextInMs = this.delayMs
		const headers: Record<string, string> = { 'user-agent': this.options.userAgent }
		if (validators.etag) headers['if-none-match'] = validators.etag
		if (validators.lastModified) headers['if-modified-since'] = validators.lastModified
		this.requests++
		try {
			const fetched = await fetchUrl(url, {
				allow: this.options.allow,
				maxBytes: keepFirstBytes ?? this.options.maxBytes,
				truncate: keepFirstBytes !== undefined,
				timeoutMs: this.options.timeoutMs,
				headers,
				followRedirect: this.followRedirect,
				...(this.options.resolve ? { resolve: this.options.resolve } : {}),
			})
			return { type: 'done', outcome: { type: 'fetched', fetched } }
		} catch (error) {
			const done = (outcome: FetchOutcome) => ({ type: 'done' as const, outcome })
			if (!(error instanceof FetchError)) return done({ type: 'unavailable', error: (error as Error).message })
			// 429 always asks to slow down; a 503 only when it says for how long (else the host may be down).
			if (error.status === 429 || (error.status === 503 && error.retryAfter)) {
				const { wait, giveUp } = this.busyWait(error.retryAfter, attempt)
				if (!giveUp) nextInMs = Math.max(this.delayMs, wait)
				return { type: 'busy', error: error.message, giveUp }
			}
			if (error.status === 304) return done({ type: 'unchanged' })
			if (error.status === 404 || error.status === 410) return done({ type: 'gone', status: error.status })
			return done(
				error.permanent
					? { type: 'refused', error: error.message, status: error.status }
					: { type: 'unavailable', error: error.message },
			)
		} finally {
			if (this.options.turns) await this.options.turns.end(turnKey(host), nextInMs)
			else {
				const state = hostOf(host)
				state.lastAt = Date.now()
				state.notBefore = Date.now() + nextInMs
				state.busy = false
			}
		}
	}

	/** Waits for the host's turn (the delay after its last answer, no other request in flight) and takes it. */
	private async turn(host: string): Promise<void> {
		const turns = this.options.turns
		if (turns) {
			for (;;) {
				this.options.signal.throwIfAborted()
				// Held while a request is in flight, at most for its timeout: a process that dies lets it lapse.
				const wait = await turns.take(turnKey(host), this.options.timeoutMs + 1000, this.delayMs)
				if (wait === 0) return
				await Bun.sleep(Math.min(wait, 250))
			}
		}
		const state = hostOf(host)
		for (;;) {
			this.options.signal.throwIfAborted()
			const wait = state.busy ? 50 : Math.max(state.lastAt + this.delayMs, state.notBefore) - Date.now()
			if (wait <= 0) break
			await Bun.sleep(Math.min(wait, 1000))
		}
		state.busy = true
	}
}

const turnKey = (host: string) => `web-crawler:${host}`

/** Retry-After in seconds or as an HTTP date, in milliseconds; null when absent or unreadable. */
export function retryAfterMs(header: string | null): number | null {
	if (!header) return null
	const seconds = Number(header)
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
	const date = Date.parse(header)
	return Number.isNaN(date) ? null : Math.max(0, date - Date.now())
}
