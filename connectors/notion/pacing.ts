/**
 * Request pacing per connection: calls start at least `1000 / requestsPerSecond` ms apart. A 429 is waited out by the
 * client library itself, which retries the refused call after its `Retry-After` (the sync's calls are sequential, so
 * nothing else of the run is sent meanwhile).
 */
export class Pacer {
	private nextAt = 0

	constructor(private readonly intervalMs: number) {}

	/** Waits for this call's turn. */
	async turn(signal?: AbortSignal): Promise<void> {
		const now = Date.now()
		const at = Math.max(now, this.nextAt)
		this.nextAt = at + this.intervalMs
		if (at > now) await sleep(at - now, signal)
	}
}

const pacers = new Map<string, { pacer: Pacer; intervalMs: number }>()

/** One pacer per connection, shared by its concurrent callers (a sync and a webhook subscription). */
export function pacerFor(connectionId: string, requestsPerSecond: number): Pacer {
	const intervalMs = requestsPerSecond > 0 ? 1000 / requestsPerSecond : 0
	const known = pacers.get(connectionId)
	if (known && known.intervalMs === intervalMs) return known.pacer
	const pacer = new Pacer(intervalMs)
	pacers.set(connectionId, { pacer, intervalMs })
	return pacer
}

/** A fetch that waits for its turn. */
export function pacedFetch(pacer: Pacer, signal?: AbortSignal): typeof fetch {
	const paced = async (input: string | URL | Request, init?: RequestInit) => {
		await pacer.turn(signal)
		return fetch(input, init)
	}
	return paced as typeof fetch
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
