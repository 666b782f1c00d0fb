import { ServiceError } from '../errors.ts'

/**
 * Per-key token bucket: `perMinute` requests a minute on average, bursts up to the same number. In-process, so with
 * several API processes each enforces the limit on its own share of the traffic. `perMinute` 0 turns it off. `subject`
 * names what a key is in the 429's details (an API key, a source address).
 */
export function createRateLimiter(perMinute: number, now: () => number = Date.now, subject = 'this API key') {
	const buckets = new Map<string, { tokens: number; at: number }>()
	const refillPerMs = perMinute / 60_000

	return function take(keyId: string): void {
		if (perMinute <= 0) return
		const time = now()
		const bucket = buckets.get(keyId) ?? { tokens: perMinute, at: time }
		bucket.tokens = Math.min(perMinute, bucket.tokens + (time - bucket.at) * refillPerMs)
		bucket.at = time
		if (bucket.tokens < 1) {
			buckets.set(keyId, bucket)
			const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000))
			throw new ServiceError(
				429,
				'Too many requests',
				`the rate limit of ${subject} is ${perMinute} requests per minute`,
				{
					'retry-after': String(retryAfter),
				},
			)
		}
		bucket.tokens -= 1
		buckets.set(keyId, bucket)
		if (buckets.size > 100_000) buckets.clear()
	}
}
