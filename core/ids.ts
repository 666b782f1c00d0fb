const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** 22-character base62 id (about 131 bits), the shape the published API uses for documents and memories. */
export function newId(): string {
	let id = ''
	while (id.length < 22) {
		for (const byte of crypto.getRandomValues(new Uint8Array(32))) {
			// 248 = 4 * 62: dropping larger bytes keeps every character equally likely.
			if (byte < 248 && id.length < 22) id += ALPHABET[byte % 62]
		}
	}
	return id
}
