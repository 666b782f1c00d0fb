/** Bytes of the document the `<meta>` prescan looks at (WHATWG HTML: "prescan a byte stream", 1024 bytes). */
const PRESCAN_BYTES = 1024

/**
 * An HTML page's text in the encoding it declares, in the order the WHATWG encoding sniffing gives: a byte order
 * mark, then the HTTP `Content-Type` charset, then a `<meta charset>` (or `http-equiv` content) in its first 1024
 * bytes, else UTF-8. A label TextDecoder does not know is passed over.
 */
export function decodeHtml(body: Uint8Array, contentType: string | null): string {
	const bom = bomOf(body)
	if (bom) return decoderFor(bom)!.decode(body)
	for (const label of [charsetOf(contentType), metaCharset(body)]) {
		const decoder = decoderFor(label)
		if (decoder) return decoder.decode(body)
	}
	return new TextDecoder().decode(body)
}

/** A plain-text or Markdown body: a byte order mark, then the HTTP `Content-Type` charset, else UTF-8. */
export function decodeText(body: Uint8Array, contentType: string | null): string {
	const decoder = decoderFor(bomOf(body)) ?? decoderFor(charsetOf(contentType)) ?? new TextDecoder()
	return decoder.decode(body)
}

function bomOf(body: Uint8Array): string | null {
	if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8'
	if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be'
	if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le'
	return null
}

const charsetOf = (contentType: string | null) => /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ?? null

function metaCharset(body: Uint8Array): string | null {
	const head = new TextDecoder('latin1').decode(body.subarray(0, PRESCAN_BYTES))
	for (const meta of head.matchAll(/<meta\b[^>]*>/gi)) {
		const found = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(meta[0])?.[1]
		// A page that says UTF-16 in ASCII bytes is not UTF-16 (the standard reads it as UTF-8).
		if (found) return /^utf-16/i.test(found) ? 'utf-8' : found
	}
	return null
}

function decoderFor(label: string | null): TextDecoder | null {
	if (!label) return null
	try {
		return new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0])
	} catch {
		return null
	}
}
