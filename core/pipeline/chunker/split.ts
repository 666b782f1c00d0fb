/**
 * Splitting text that is too long for one chunk. A splitter cuts text into pieces whose concatenation is the text
 * itself (whitespace included), so no text is lost; `splitToFit` tries splitters from coarse to fine.
 */

export type Splitter = (text: string) => string[]

export const byLines: Splitter = (text) => text.split(/(?<=\n)/)

export const byListItems: Splitter = (text) => text.split(/(?<=\n)(?=[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t])/)

export const byWords: Splitter = (text) => text.match(/\s*\S+\s*/g) ?? []

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' })
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/*
 * Intl.Segmenter handles "e.g.", "i.e." and "U.S." but ends a sentence after a title ("Dr. | Smith"), an initial
 * ("J. | Smith") and a list number ("1. | First"), so such pieces are glued to the next one. A sentence that really
 * ends in one of these ("... met the Dr.") is then glued to the following sentence: harmless for chunking.
 */
const NOT_A_SENTENCE_END =
	/(?:(?:^|[\s(])(?:Mr|Mrs|Ms|Mx|Dr|Prof|Sr|Jr|St|Mt|Gen|Col|Capt|Rev|vs|cf|Fig|\p{Lu})|^\s*\d{1,9})\.\s*$/u

export const bySentences: Splitter = (text) => {
	const sentences: string[] = []
	let pending = ''
	for (const { segment } of sentenceSegmenter.segment(text)) {
		pending += segment
		if (!NOT_A_SENTENCE_END.test(segment)) {
			sentences.push(pending)
			pending = ''
		}
	}
	if (pending) sentences.push(pending)
	return sentences
}

/** Text longer than this is split a window at a time, so the splitters' pieces of it (and their garbage) stay few. */
const WINDOW_CHARS = 65_536

/**
 * Cuts text into trimmed, non-empty pieces of at most `budget` characters, packing neighbouring pieces together.
 * A piece still too long goes to the next, finer splitter; past the last one it is cut between graphemes.
 */
export function splitToFit(text: string, budget: number, splitters: Splitter[]): string[] {
	const trimmed = text.trim()
	if (trimmed.length <= budget) return trimmed ? [trimmed] : []
	if (trimmed.length > WINDOW_CHARS) return splitByWindows(trimmed, budget, splitters)
	return splitWhole(trimmed, budget, splitters)
}

/**
 * splitToFit over windows of the text cut after a line break where there is one. The last chunk of a window is
 * not final: it goes back in front of the next window, so chunks are packed across the cuts, and a huge paragraph
 * is never held whole (docs/measurements.md).
 */
function splitByWindows(text: string, budget: number, splitters: Splitter[]): string[] {
	const chunks: string[] = []
	let carry = ''
	for (let start = 0; start < text.length; ) {
		let end = Math.min(text.length, start + WINDOW_CHARS)
		const lineEnd = end < text.length ? text.lastIndexOf('\n', end - 1) : -1
		if (lineEnd > start) end = lineEnd + 1
		const window = carry + text.slice(start, end)
		start = end
		const parts = splitWhole(window.trim(), budget, splitters)
		if (start >= text.length) {
			chunks.push(...parts)
			break
		}
		// The whitespace after the last chunk joins it to the next window; beyond `budget` it could only be a cut.
		carry = (parts.pop() ?? '') + window.slice(window.trimEnd().length).slice(0, budget)
		chunks.push(...parts)
	}
	return chunks
}

function splitWhole(trimmed: string, budget: number, splitters: Splitter[]): string[] {
	if (trimmed.length <= budget) return trimmed ? [trimmed] : []
	const [split, ...finer] = splitters
	if (!split) return byGraphemes(trimmed, budget)
	const chunks: string[] = []
	let current = ''
	for (const piece of split(trimmed)) {
		if ((current + piece).trim().length <= budget) {
			current += piece
			continue
		}
		if (current.trim()) chunks.push(current.trim())
		if (piece.trim().length <= budget) {
			current = piece
			continue
		}
		// The last part of a split piece may still share a chunk with what follows.
		const parts = splitToFit(piece, budget, finer)
		current = (parts.pop() ?? '') + piece.slice(piece.trimEnd().length)
		chunks.push(...parts)
	}
	if (current.trim()) chunks.push(current.trim())
	return chunks
}

function byGraphemes(text: string, budget: number): string[] {
	const chunks: string[] = []
	let current = ''
	for (const { segment } of graphemeSegmenter.segment(text)) {
		if (current.length + segment.length > budget && current) {
			chunks.push(current)
			current = ''
		}
		current += segment
	}
	if (current) chunks.push(current)
	return chunks
}
