const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Uniformly random base62 text: bytes of 248 and above are dropped (248 = 4 * 62) so no character is favoured. */
export function randomBase62(length: number): string {
	let text = ''
	while (text.length < length) {
		for (const byte of crypto.getRandomValues(new Uint8Array(length + 8))) {
			if (byte < 248 && text.length < length) text += ALPHABET[byte % 62]
		}
	}
	return text
}

/** 22-character base62 id (about 131 bits), the shape the published API uses for documents and memories. */
export function newId(): string {
	return randomBase62(22)
}
