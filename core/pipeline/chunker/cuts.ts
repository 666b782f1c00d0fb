/** Where a piece of a long text ends (see pieces.ts): at a boundary its chunker would respect anyway. */
import { parseSpeakerLine } from '../transcript.ts'
import { closesFence, fenceOpening } from './fence.ts'
import type { Cut } from './pieces.ts'

const ATX_HEADING = /^ {0,3}#{1,6}[ \t]+\S/

/**
 * Cuts markdown-ish text outside code fences, in its second half: at the last heading, else after the last blank
 * line, else at the last line start. A piece that is code from there on is cut at its last line, and the fence's
 * marker goes on to the next piece so the rest is still code. A piece of one line is taken whole.
 */
export function documentCut(piece: string): Cut {
	const half = piece.length / 2
	let heading = 0
	let paragraph = 0
	let line = 0
	let last = 0
	let fence: string | null = null
	let previousBlank = false
	let start = 0
	for (const text of piece.split('\n')) {
		if (start > 0 && !fence) {
			if (start >= half && ATX_HEADING.test(text)) heading = start
			if (start >= half && previousBlank && text !== '') paragraph = start
			line = start
		}
		last = start
		if (fence) {
			if (closesFence(text, fence)) fence = null
		} else fence = fenceOpening(text)
		previousBlank = text === ''
		start += text.length + 1
	}
	const at = heading || paragraph || (line >= half ? line : 0)
	if (at > 0) return { at }
	if (fence && last > 0) return { at: last, carry: `${fence}\n` }
	return line > 0 ? { at: line } : { at: piece.length }
}

/** Cuts a chat transcript at the last turn in its second half, else at its last line start. */
export function transcriptCut(piece: string): Cut {
	const half = piece.length / 2
	for (let end = piece.length; end > 0; ) {
		const start = piece.lastIndexOf('\n', end - 1) + 1
		if (start < half || start === 0) break
		if (parseSpeakerLine(piece.slice(start, end))) return { at: start }
		end = start - 1
	}
	return lineCut(piece)
}

/** Cuts at the last line start, so that every line but one longer than a piece is read whole. */
export function lineCut(piece: string): Cut {
	const at = piece.lastIndexOf('\n') + 1
	return { at: at || piece.length }
}
