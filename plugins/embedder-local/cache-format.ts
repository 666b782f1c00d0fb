/**
 * The binary word-vector cache: a few bytes of magic, a JSON header, then the payload.
 *
 *   magic (8 bytes) | header length (u32 LE) | header JSON, space-padded to a multiple of 4 |
 *   row scales (f32 LE, one per word) | matrix (i8, words x dimensions, row-major) | vocabulary (UTF-8, '\n'-joined)
 *
 * Row i of the matrix times scales[i] is the vector of vocabulary word i (rank order, most frequent first).
 * The header carries a fingerprint of the source and a CRC-32 of the payload, so a stale, truncated or corrupt
 * file is detected and rebuilt rather than trusted.
 */
import { CACHE_FORMAT_VERSION } from './method.ts'

const MAGIC = 'wink-sif'
const PREFIX_BYTES = MAGIC.length + 4

export interface WordVectorTable {
	fingerprint: string
	dimensions: number
	words: string[]
	scales: Float32Array
	matrix: Int8Array
}

interface CacheHeader {
	version: number
	fingerprint: string
	dimensions: number
	wordCount: number
	vocabularyBytes: number
	checksum: number
}

export class InvalidCacheError extends Error {}

export function encodeCache(table: WordVectorTable): Uint8Array {
	const wordCount = table.words.length
	if (table.scales.length !== wordCount || table.matrix.length !== wordCount * table.dimensions) {
		throw new Error('word vector table sizes do not match its vocabulary')
	}
	if (table.words.some((word) => word.includes('\n'))) throw new Error('a vocabulary word contains a newline')
	const vocabulary = new TextEncoder().encode(table.words.join('\n'))
	const payload = new Uint8Array(wordCount * 4 + table.matrix.length + vocabulary.length)
	payload.set(new Uint8Array(table.scales.buffer, table.scales.byteOffset, table.scales.byteLength), 0)
	payload.set(new Uint8Array(table.matrix.buffer, table.matrix.byteOffset, table.matrix.byteLength), wordCount * 4)
	payload.set(vocabulary, wordCount * 4 + table.matrix.length)
	const header: CacheHeader = {
		version: CACHE_FORMAT_VERSION,
		fingerprint: table.fingerprint,
		dimensions: table.dimensions,
		wordCount,
		vocabularyBytes: vocabulary.length,
		checksum: Bun.hash.crc32(payload),
	}
	let headerJson = JSON.stringify(header)
	headerJson += ' '.repeat((4 - ((PREFIX_BYTES + headerJson.length) % 4)) % 4)
	const headerBytes = new TextEncoder().encode(headerJson)
	const out = new Uint8Array(PREFIX_BYTES + headerBytes.length + payload.length)
	out.set(new TextEncoder().encode(MAGIC), 0)
	new DataView(out.buffer).setUint32(MAGIC.length, headerBytes.length, true)
	out.set(headerBytes, PREFIX_BYTES)
	out.set(payload, PREFIX_BYTES + headerBytes.length)
	return out
}

/** Reads a cache, checking it belongs to `expectedFingerprint` and is intact; throws InvalidCacheError otherwise. */
export function decodeCache(bytes: Uint8Array, expectedFingerprint: string): WordVectorTable {
	if (bytes.length < PREFIX_BYTES || new TextDecoder().decode(bytes.subarray(0, MAGIC.length)) !== MAGIC) {
		throw new InvalidCacheError('not a word-vector cache file')
	}
	const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MAGIC.length, true)
	const payloadStart = PREFIX_BYTES + headerLength
	if (payloadStart > bytes.length) throw new InvalidCacheError('truncated header')
	const header = parseHeader(new TextDecoder().decode(bytes.subarray(PREFIX_BYTES, payloadStart)))
	if (header.version !== CACHE_FORMAT_VERSION) throw new InvalidCacheError(`format version ${header.version}`)
	if (header.fingerprint !== expectedFingerprint) {
		throw new InvalidCacheError(`built from "${header.fingerprint}", expected "${expectedFingerprint}"`)
	}
	const { wordCount, dimensions } = header
	const matrixStart = payloadStart + wordCount * 4
	const vocabularyStart = matrixStart + wordCount * dimensions
	const end = vocabularyStart + header.vocabularyBytes
	if (bytes.length !== end) throw new InvalidCacheError(`size ${bytes.length} bytes, expected ${end}`)
	if (Bun.hash.crc32(bytes.subarray(payloadStart)) !== header.checksum) throw new InvalidCacheError('checksum mismatch')
	const words = new TextDecoder().decode(bytes.subarray(vocabularyStart, end)).split('\n')
	if (words.length !== wordCount) throw new InvalidCacheError('vocabulary size does not match the header')
	// payloadStart is a multiple of 4 (the header is padded), so the scales can be viewed in place when the buffer is.
	const scalesOffset = bytes.byteOffset + payloadStart
	const scales =
		scalesOffset % 4 === 0
			? new Float32Array(bytes.buffer, scalesOffset, wordCount)
			: new Float32Array(bytes.slice(payloadStart, matrixStart).buffer)
	const matrix = new Int8Array(bytes.buffer, bytes.byteOffset + matrixStart, wordCount * dimensions)
	return { fingerprint: header.fingerprint, dimensions, words, scales, matrix }
}

function parseHeader(text: string): CacheHeader {
	let header: Partial<CacheHeader>
	try {
		header = JSON.parse(text)
	} catch {
		throw new InvalidCacheError('unreadable header')
	}
	const numeric = ['version', 'dimensions', 'wordCount', 'vocabularyBytes', 'checksum'] as const
	if (typeof header.fingerprint !== 'string' || numeric.some((key) => !Number.isInteger(header[key]))) {
		throw new InvalidCacheError('incomplete header')
	}
	return header as CacheHeader
}
