import { type ExtractionInput, parseTranscript } from '../../core/index.ts'

/** A stretch of the input read as a whole: one chat turn, or one paragraph or list item of a document. */
export interface TextUnit {
	text: string
	/** The speaker label of a chat turn; null in a document. */
	speaker: string | null
	/** `ConversationTurn.index` of the turn, when the input came with parsed turns. */
	turnIndex: number | null
	conversational: boolean
}

export interface SplitInput {
	units: TextUnit[]
	/** A date written in a transcript's preamble (`[date: 2023-05-08]`), for inputs without `date`. */
	preambleDate: string | null
}

const FENCE = /^\s*(```|~~~)/
const BLOCK_START = /^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|>\s?|\|)/

/**
 * The input as units: its parsed turns; or, for a document, the turns of a chat transcript it holds (the shared
 * `Speaker: text` rule of core); or its paragraphs and list items, with markdown marks removed and headings, code
 * blocks and tables left out.
 */
export function splitInput(input: ExtractionInput): SplitInput {
	if (input.turns) {
		return {
			units: input.turns.map((turn) => ({
				text: turn.text,
				speaker: turn.speaker,
				turnIndex: turn.index,
				conversational: true,
			})),
			preambleDate: null,
		}
	}
	const transcript = parseTranscript(input.text)
	if (transcript) {
		const turns = transcript.turns.map((turn) => ({
			text: turn.text,
			speaker: turn.speaker,
			turnIndex: null,
			conversational: true,
		}))
		return { units: [...documentUnits(transcript.preamble), ...turns], preambleDate: transcript.preamble || null }
	}
	return { units: documentUnits(input.text), preambleDate: null }
}

function documentUnits(text: string): TextUnit[] {
	const units: TextUnit[] = []
	let paragraph: string[] = []
	let inFence = false
	const flush = () => {
		const joined = paragraph.join(' ').trim()
		if (joined) units.push({ text: joined, speaker: null, turnIndex: null, conversational: false })
		paragraph = []
	}
	for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
		if (FENCE.test(line)) {
			flush()
			inFence = !inFence
			continue
		}
		if (inFence) continue
		if (line.trim() === '' || BLOCK_START.test(line)) flush()
		if (/^\s*\|/.test(line)) continue
		// A heading names what follows; it states nothing itself.
		if (/^\s*#{1,6}\s/.test(line)) continue
		const cleaned = stripMarkdown(line)
		if (cleaned) paragraph.push(cleaned)
	}
	flush()
	return units
}

function stripMarkdown(line: string): string {
	return line
		.replace(/^\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s?)/, '')
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/(\*\*|__)/g, '')
		.trim()
}
