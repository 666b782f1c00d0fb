/**
 * Full stops that do not end a sentence in developer notes: inside inline code (`app.listen()`), URLs, dotted names
 * and file names (Node.js, tsconfig.json, db/migrate.ts, .env) and version numbers (5.9.2, v0.30.1). wink-nlp ends a
 * sentence at each of them, and reads a URL followed by a full stop as one token that ends no sentence. So before it
 * reads the text, inline code and URLs become one placeholder word each and other such dots a look-alike it reads as
 * a symbol; both are swapped back in what it returns. Letter abbreviations (e.g., i.e., U.S.) are left to its rules.
 */
const STAND_IN = '\u2024'
const PLACEHOLDER = /zqxspan(\d+)q/g

const INLINE_CODE = /`[^`\n]+`/g
const URL = /\b(?:https?|ftp):\/\/[^\s<>"'`]+?(?=[.,;:!?)\]]*(?:\s|$))/g
const INNER_DOT = /(?<=[\p{L}\p{N}_)\]])\.(?=[\p{L}\p{N}_])/gu
const LEADING_DOT = /(?<=^|[\s("'])\.(?=[\p{L}_])/gu
const LETTER_ABBREVIATION = /(?<![\p{L}\p{N}_])\p{L}\.(?:\p{L}\.)+/gu

export interface ProtectedText {
	text: string
	/** A token's value (or a sentence's text) as written. */
	restore(value: string): string
}

export function protectDots(text: string): ProtectedText {
	// A text that already holds a stand-in is read as it is, so restoring never invents anything.
	if (text.includes(STAND_IN) || /zqxspan\d+q/.test(text)) return { text, restore: (value) => value }
	const spans: string[] = []
	const withPlaceholders = text.replace(new RegExp(`${INLINE_CODE.source}|${URL.source}`, 'g'), (span) => {
		spans.push(span)
		return `zqxspan${spans.length - 1}q`
	})
	const keep = new Set<number>()
	for (const match of withPlaceholders.matchAll(LETTER_ABBREVIATION)) {
		for (let i = match.index; i < match.index + match[0].length; i++) keep.add(i)
	}
	const chars = withPlaceholders.split('')
	for (const pattern of [INNER_DOT, LEADING_DOT]) {
		for (const match of withPlaceholders.matchAll(pattern)) if (!keep.has(match.index)) chars[match.index] = STAND_IN
	}
	return {
		text: chars.join(''),
		restore: (value) =>
			value.replaceAll(STAND_IN, '.').replace(PLACEHOLDER, (placeholder, index) => spans[Number(index)] ?? placeholder),
	}
}
