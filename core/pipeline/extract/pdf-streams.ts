import { constants, inflateSync } from 'node:zlib'
import { PermanentStageError } from '../../errors.ts'

const STREAM = Buffer.from('stream')
const END = Buffer.from('endstream')

/**
 * Refuses a PDF whose compressed streams inflate to more than `limit` bytes in all, before the PDF reader inflates
 * them in memory (a 3 MB file of one stream of 3 GiB of spaces took the process to 7.3 GB). Every stream is tried
 * as zlib data (Flate, the filter such bombs use); each inflates under what is left of the limit, so at most `limit`
 * bytes are ever held.
 */
export function checkPdfInflatedSize(bytes: Uint8Array, limit: number): void {
	const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
	let total = 0
	let at = data.indexOf(STREAM)
	while (at !== -1) {
		let start = at + STREAM.length
		if (data[start] === 0x0d) start++
		if (data[start] !== 0x0a || data.subarray(at - 3, at).toString() === 'end') {
			at = data.indexOf(STREAM, at + STREAM.length)
			continue
		}
		start++
		const end = data.indexOf(END, start)
		if (end === -1) return
		total += inflatedSize(data.subarray(start, end), limit - total)
		if (total > limit) {
			throw new PermanentStageError(
				`the PDF inflates to more than ${limit} bytes (a decompression bomb?); the limit is MEMORY_MAX_UNCOMPRESSED_BYTES`,
			)
		}
		at = data.indexOf(STREAM, end + END.length)
	}
}

/** The inflated size of zlib data, or `budget + 1` when it is larger; 0 when it is not zlib data. */
function inflatedSize(compressed: Buffer, budget: number): number {
	// Zlib data starts with a header whose first 16 bits are a multiple of 31 (RFC 1950).
	if (compressed.length < 2 || (compressed[0]! & 0x0f) !== 8 || ((compressed[0]! << 8) | compressed[1]!) % 31 !== 0) {
		return 0
	}
	try {
		return inflateSync(compressed, { maxOutputLength: Math.max(1, budget + 1), finishFlush: constants.Z_SYNC_FLUSH })
			.length
	} catch (error) {
		if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return budget + 1
		return 0
	}
}
