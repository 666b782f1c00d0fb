export interface LoadResult {
	requests: number
	errors: number
	p95Ms: number
}

/** Mixed traffic from `clients` loops on loopback, bounded by a request count and a time. */
export async function boundedLoad(url: string, key: string, clients = 8, maxRequests = 600, maxMs = 30_000) {
	const latencies: number[] = []
	let errors = 0
	let issued = 0
	const stopAt = Date.now() + maxMs
	const call = (i: number) => {
		const kind = i % 4
		const body =
			kind === 0
				? {
						path: '/v3/documents',
						json: { content: `Load note ${i}: the lighthouse keeper logs ship ${i}.`, containerTag: 'load' },
					}
				: kind === 3
					? { path: '/v3/documents/list', json: { containerTags: ['load'], limit: 10 } }
					: {
							path: kind === 1 ? '/v3/search' : '/v4/search',
							json: { q: `lighthouse ship ${i % 50}`, containerTag: 'load' },
						}
		const json = body.path === '/v3/search' ? { q: body.json.q, containerTags: ['load'] } : body.json
		return fetch(`${url}${body.path}`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify(json),
		})
	}
	await Promise.all(
		Array.from({ length: clients }, async () => {
			while (issued < maxRequests && Date.now() < stopAt) {
				const i = issued++
				const started = performance.now()
				const response = await call(i).catch(() => null)
				latencies.push(performance.now() - started)
				if (!response || response.status >= 500) errors++
				await response?.arrayBuffer()
			}
		}),
	)
	latencies.sort((a, b) => a - b)
	return {
		requests: latencies.length,
		errors,
		p95Ms: latencies[Math.floor(latencies.length * 0.95)] ?? 0,
	} satisfies LoadResult
}
