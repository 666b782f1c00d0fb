/**
 * A closed-loop load driver: `concurrency` clients, each sending its next request when the previous one answered,
 * until `requests` were sent or `maxMs` passed, whichever comes first. Bounded in count and time by construction.
 */

export interface LoadOptions {
	concurrency: number
	requests: number
	maxMs: number
}

export interface Sample {
	ok: boolean
	/** Client latency. */
	ms: number
	/** The server's own `timing`, when the response has one. */
	serverMs?: number
}

export interface LoadResult {
	samples: Sample[]
	errors: number
	elapsedMs: number
	/** Successful requests per second over the whole run. */
	perSecond: number
	/** True when the time bound ended the run before every request was sent. */
	cutShort: boolean
}

export async function runLoad(options: LoadOptions, send: (index: number) => Promise<Sample>): Promise<LoadResult> {
	const samples: Sample[] = []
	let issued = 0
	let errors = 0
	const started = performance.now()
	const deadline = started + options.maxMs
	const client = async () => {
		while (issued < options.requests && performance.now() < deadline) {
			const index = issued++
			try {
				const sample = await send(index)
				samples.push(sample)
				if (!sample.ok) errors++
			} catch {
				errors++
			}
		}
	}
	await Promise.all(Array.from({ length: options.concurrency }, client))
	const elapsedMs = performance.now() - started
	const ok = samples.filter((sample) => sample.ok)
	return {
		samples: ok,
		errors,
		elapsedMs,
		perSecond: ok.length / (elapsedMs / 1000),
		cutShort: issued < options.requests,
	}
}
