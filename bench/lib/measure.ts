import type { BenchClient } from './http.ts'
import { type LoadOptions, runLoad } from './load.ts'
import { type Summary, summarize } from './stats.ts'
import { type Cell, fixed, ms } from './table.ts'

export interface EndpointResult {
	concurrency: number
	server: Summary | null
	client: Summary
	perSecond: number
	errors: number
	cutShort: boolean
}

/**
 * Sends `body(i)` to `path` under a closed-loop load and summarises client latency, the server's own `timing`
 * (when responses carry one) and requests per second.
 */
export async function measureEndpoint(
	client: BenchClient,
	path: string,
	body: (index: number) => unknown,
	load: LoadOptions,
): Promise<EndpointResult> {
	const result = await runLoad(load, async (index) => {
		const reply = await client.post(path, body(index))
		const timing = reply.body?.timing
		// The body's `timing` (search) is the operation itself; Server-Timing covers the whole request.
		return { ok: reply.status === 200, ms: reply.ms, serverMs: typeof timing === 'number' ? timing : reply.serverMs }
	})
	const serverTimes = result.samples.flatMap((sample) => (sample.serverMs === undefined ? [] : [sample.serverMs]))
	return {
		concurrency: load.concurrency,
		server: serverTimes.length > 0 ? summarize(serverTimes) : null,
		client: summarize(result.samples.map((sample) => sample.ms)),
		perSecond: result.perSecond,
		errors: result.errors,
		cutShort: result.cutShort,
	}
}

export const LATENCY_HEADERS = [
	'concurrency',
	'server p50',
	'server p95',
	'server p99',
	'client p50',
	'client p95',
	'client p99',
	'req/s',
	'requests',
	'errors',
]

export function latencyCells(result: EndpointResult): Cell[] {
	return [
		result.concurrency,
		result.server ? ms(result.server.p50) : null,
		result.server ? ms(result.server.p95) : null,
		result.server ? ms(result.server.p99) : null,
		ms(result.client.p50),
		ms(result.client.p95),
		ms(result.client.p99),
		fixed(result.perSecond),
		`${result.client.count}${result.cutShort ? ' (time bound)' : ''}`,
		result.errors,
	]
}
