import { createGunzip } from 'node:zlib'

/** The inflated body would pass the limit: the file is refused rather than inflated further. */
export class InflateLimitError extends Error {
	constructor(readonly limit: number) {
		super(`inflates to more than ${limit} bytes`)
	}
}

/**
 * Inflates gzip bytes (every member of a multi-member file) as a stream on zlib's worker threads, so the event loop
 * stays free, and stops as soon as the output passes `maxBytes`: a small file that inflates a thousand-fold costs
 * at most `maxBytes` of memory.
 */
export function gunzipLimited(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
	return new Promise((resolve, reject) => {
		const gunzip = createGunzip()
		const parts: Buffer[] = []
		let total = 0
		let settled = false
		const finish = (error: Error | null) => {
			if (settled) return
			settled = true
			if (error) reject(error)
			else resolve(Buffer.concat(parts))
		}
		gunzip.on('data', (chunk: Buffer) => {
			total += chunk.length
			if (total > maxBytes) {
				parts.length = 0
				gunzip.destroy()
				finish(new InflateLimitError(maxBytes))
				return
			}
			parts.push(chunk)
		})
		gunzip.on('end', () => finish(null))
		gunzip.on('error', (error) => finish(error))
		gunzip.end(bytes)
	})
}
