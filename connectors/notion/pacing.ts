/**
 * Request pacing per connection: calls start at least `1000 / requestsPerSecond` ms apart, and a 429 holds every
 * call of the connection until its `Retry-After` has passed (the client library then retries the refused call).
 */
export class Pacer {
	private nextAt = 0
	private heldUntil = 0

	constructor(private readonly intervalMs: number) {}

	/** Waits for this call's turn. */
	async turn(signal?: AbortSignal): Promise<void> {
		const now = Date.now()
		const at = Math.max(now, this.nextAt, this.heldUntil)
		this.nextAt = at + this.intervalMs
		if (at > now) await sleep(at - now, signal)
	}

	/** Notion answered 429: nothing more is sent before `retryAfterSeconds` (1 s when it named none). */
	hold(retryAfterSeconds: number | null): void {
		this.heldUntil = Math.max(this.heldUntil, Date.now() + (retryAfterSeconds ?? 1) * 1000)
	}
}

const pacers = new Map<string, { pacer: Pacer; intervalMs: number }>()

/** One pacer per connection, shared by its concurrent callers (a sync and a resource listing). */
export function pacerFor(connectionId: string, requestsPerSecond: number): Pacer {
	const intervalMs = requestsPerSecond > 0 ? 1000 / requestsPerSecond : 0
	const known = pacers.get(connectionId)
	if (known && known.intervalMs === intervalMs) return known.pacer
	const pacer = new Pacer(intervalMs)
	pacers.set(connectionId, { pacer, intervalMs })
	return pacer
}

/** A fetch that waits for its turn, and holds the connection's later calls when Notion answers 429. */
export function pacedFetch(pacer: Pacer, signal?: AbortSignal): typeof fetch {
	const paced = async (input: string | URL | Request, init?: RequestInit) => {
		await pacer.turn(signal)
		const response = await fetch(input, init)
		if (response.status === 429) pacer.hold(retryAfterSeconds(response.headers.get('retry-after')))
		return response
	}
	return paced as typeof fetch
}

export function retryAfterSeconds(header: string | null): number | null {
	if (!header) return null
	const seconds = Number(header)
	if (Number.isFinite(seconds) && seconds >= 0) return seconds
	const date = Date.parse(header)
	return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000)
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		const timer = setTimeout(resolve, ms)
		signal?.addEventListener(
			'abort',
			() => {
				clearTimeout(timer)
				resolve()
			},
			{ once: true },
		)
	})
}
