/** Deepest nesting of arrays and objects a JSON body or JSON field may have; real requests need a handful of levels. */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/**
 * Follows the nesting of JSON text as it streams in, byte by byte, without parsing it: `push` returns false as soon
 * as the text opens more than `max` arrays or objects. Brackets inside strings do not count.
 */
export function jsonDepthTracker(max = MAX_JSON_DEPTH) {
	let depth = 0
	let inString = false
	let escaped = false
	return {
		push(bytes: Uint8Array): boolean {
			for (let i = 0; i < bytes.length; i++) {
				const byte = bytes[i]!
				if (inString) {
					if (escaped) escaped = false
					else if (byte === BACKSLASH) escaped = true
					else if (byte === QUOTE) inString = false
				} else if (byte === QUOTE) inString = true
				else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
					if (++depth > max) return false
				} else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--
			}
			return true
		},
	}
}

/** True when JSON text (a body, a multipart field, a query parameter) nests no deeper than `max`. */
export function jsonDepthWithin(text: string, max = MAX_JSON_DEPTH): boolean {
	return jsonDepthTracker(max).push(new TextEncoder().encode(text))
}
