/**
 * Cutting a long text into bounded pieces, normalized one at a time (see normalize.ts), so nothing holds an array of
 * every line of the whole text. A piece ends where the caller's `CutChooser` says (a heading, a blank line, a turn);
 * the rest goes in front of the next piece.
 */
import { normalizeLines } from './normalize.ts'

export interface Cut {
	/** Where the piece ends: a line start, or the piece's length. */
	at: number
	/** Put in front of the rest, such as the marker of a code fence left open at the cut. */
	carry?: string
}

export type CutChooser = (piece: string) => Cut

/** Pieces of normalized text of about `pieceChars` characters (at most 1.5 times that), in order. */
export function* textPieces(text: string, pieceChars: number, chooseCut: CutChooser): Generator<string> {
	let carry = ''
	let start = 0
	while (start < text.length) {
		// The carried rest counts towards the piece, but half a piece of new text is always read, so pieces advance.
		const end = rawEnd(text, start, Math.max(pieceChars - carry.length, Math.ceil(pieceChars / 2)))
		const raw = text.slice(start, end)
		start = end
		if (start >= text.length) {
			yield normalizeLines(carry + raw)
			return
		}
		// A line that runs on into the next piece keeps its trailing whitespace until it is whole.
		const lineEnd = Math.max(raw.lastIndexOf('\n'), raw.lastIndexOf('\r')) + 1
		const piece = lineEnd > 0 ? normalizeLines(carry + raw.slice(0, lineEnd)) + raw.slice(lineEnd) : carry + raw
		const cut = chooseCut(piece)
		if (cut.at > 0) yield piece.slice(0, cut.at)
		carry = (cut.carry ?? '') + piece.slice(cut.at)
	}
}

/**
 * Where raw text read from `start` ends: after the last line break within `length` characters; in a line longer than
 * that, after its last space or tab, else anywhere but inside a surrogate pair.
 */
function rawEnd(text: string, start: number, length: number): number {
	const end = start + length
	if (end >= text.length) return text.length
	const window = text.slice(start, end)
	const lineBreak = Math.max(window.lastIndexOf('\n'), window.lastIndexOf('\r'))
	if (lineBreak >= 0) {
		const at = start + lineBreak + 1
		return text[at - 1] === '\r' && text[at] === '\n' ? at + 1 : at
	}
	for (let i = end - 1; i > start; i--) {
		const code = text.charCodeAt(i)
		if (code === 32 || code === 9) return i + 1
	}
	const highSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
	return highSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end
}
