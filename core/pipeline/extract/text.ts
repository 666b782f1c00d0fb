const TITLE_MAX = 120

/** Line endings as `\n`, no NUL characters (PostgreSQL text cannot hold them), trimmed. */
export function normalizeExtractedText(text: string): string {
	return text.replace(/\r\n?/g, '\n').replaceAll('\u0000', '').trim()
}

/** The first heading or the first non-empty line, shortened to a title. */
export function deriveTitle(text: string): string | null {
	const firstLine = text
		.split('\n')
		.map((line) => line.replace(/^#{1,6}\s+/, '').trim())
		.find((line) => line.length > 0)
	return firstLine ? shortTitle(firstLine) : null
}

export function shortTitle(title: string): string | null {
	const clean = title.replace(/\s+/g, ' ').trim()
	if (!clean) return null
	return clean.length <= TITLE_MAX ? clean : `${clean.slice(0, TITLE_MAX - 1).trimEnd()}…`
}

/** A file name without its extension, as a last-resort title. */
export function titleFromFileName(name: string | null | undefined): string | null {
	return shortTitle((name ?? '').replace(/\.[A-Za-z0-9]{1,10}$/, '').replace(/[_-]+/g, ' '))
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true })
const windows1252 = new TextDecoder('windows-1252')

/**
 * The bytes as text, or null when they are binary: UTF-8 (with or without BOM), or, failing that, a legacy 8-bit
 * encoding when the bytes hold no NULs and few control characters.
 */
export function decodeText(bytes: Uint8Array): string | null {
	const sample = bytes.subarray(0, 65_536)
	let controls = 0
	for (const byte of sample) {
		if (byte === 0) return null
		if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12) controls++
	}
	if (controls > sample.length * 0.01) return null
	try {
		return fatalUtf8.decode(bytes)
	} catch {
		const text = windows1252.decode(bytes)
		// Random bytes decode too; real legacy text is mostly ASCII.
		let ascii = 0
		for (const byte of sample) if (byte < 128) ascii++
		return ascii >= sample.length * 0.9 ? text : null
	}
}
