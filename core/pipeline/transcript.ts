/**
 * The one rule for recognising chat transcripts (`Speaker: text` lines), shared by the chunker, conversation ingest
 * and memory extraction.
 */

export interface TranscriptTurn {
	speaker: string
	text: string
}

export interface Transcript {
	/** Lines before the first turn, such as `[date: 2023-05-08]`; '' when there are none. */
	preamble: string
	turns: TranscriptTurn[]
}

const ROLES = ['user', 'assistant', 'system', 'tool', 'human', 'ai', 'bot', 'model']
const MAX_SPEAKER_CHARS = 40

// A name is 1-3 words: the first capitalised, the others capitalised or a number ("Speaker 2"). Roles match in any case.
const NAME_WORD = String.raw`\p{Lu}[\p{L}\p{M}\p{N}'.\-]*`
const NAME = new RegExp(String.raw`^${NAME_WORD}(?: (?:${NAME_WORD}|\p{N}+)){0,2}$`, 'u')
const SPEAKER_LINE = new RegExp(
	String.raw`^[ \t]*(?<speaker>[^:\n]{1,${MAX_SPEAKER_CHARS}}):(?:[ \t]+(?<text>.*))?$`,
	'u',
)

/** The speaker and first-line text of a `Speaker: text` line, or null when the line is not one. */
export function parseSpeakerLine(line: string): TranscriptTurn | null {
	if (!line.includes(':')) return null
	const match = SPEAKER_LINE.exec(line)
	const speaker = match?.groups?.speaker
	if (!speaker || !(ROLES.includes(speaker.toLowerCase()) || NAME.test(speaker))) return null
	return { speaker, text: match.groups?.text ?? '' }
}

/**
 * Parses text as a transcript, or returns null when it is not one: more than half of the non-empty lines must be
 * speaker lines, at least two of them, and the speakers must look like a conversation (see looksLikeConversation),
 * so a block of `Title: x` / `Author: y` fields is not mistaken for a chat.
 */
export function parseTranscript(text: string): Transcript | null {
	const lines = text.replace(/\r\n?/g, '\n').split('\n')
	const nonEmpty = lines.filter((line) => line.trim() !== '').length
	const { preamble, turns } = collectTurns(lines)
	if (turns.length < 2 || turns.length * 2 <= nonEmpty || !looksLikeConversation(turns)) return null
	return asTranscript(preamble, turns)
}

/**
 * The turns of a piece of a long transcript (see TranscriptTally): lines before its first speaker line go on with the
 * turn of `speaker`, the last speaker of the piece before, or are the preamble before there is one.
 */
export function readTranscriptPiece(text: string, speaker?: string): Transcript & { speaker?: string } {
	const { preamble, turns } = collectTurns(text.split('\n'), speaker)
	const transcript = asTranscript(preamble, turns)
	// A turn going on from the piece before starts with its text (a cut falls at a line start, not at a speaker line).
	if (speaker !== undefined && transcript.turns[0]?.text === '') transcript.turns.shift()
	return { ...transcript, speaker: turns.at(-1)?.speaker ?? speaker }
}

interface RawTurn {
	speaker: string
	lines: string[]
}

function collectTurns(lines: string[], speaker?: string): { preamble: string[]; turns: RawTurn[] } {
	const preamble: string[] = []
	const turns: RawTurn[] = speaker === undefined ? [] : [{ speaker, lines: [] }]
	for (const line of lines) {
		const speakerLine = parseSpeakerLine(line)
		if (speakerLine) turns.push({ speaker: speakerLine.speaker, lines: [speakerLine.text] })
		else if (turns.length > 0) turns.at(-1)!.lines.push(line)
		else preamble.push(line)
	}
	return { preamble, turns }
}

function asTranscript(preamble: string[], turns: RawTurn[]): Transcript {
	return {
		preamble: trimLines(preamble),
		turns: turns.map((turn) => ({ speaker: turn.speaker, text: trimLines(turn.lines) })),
	}
}

/**
 * parseTranscript's decision, made a piece at a time on a text too long to split into lines at once. A piece that
 * does not end with a line break ends inside a line, which the next piece goes on with.
 */
export class TranscriptTally {
	private turns = 0
	private nonEmpty = 0
	private conversation = false
	private readonly speakers = new Set<string>()
	/** Of the first three turns (the two-message rule needs two): how many words, up to 4, and the last line. */
	private readonly firstTurns: { speaker: string; words: number; lastLine: string }[] = []
	private insideLine = false
	private lineHasText = false

	add(piece: string): void {
		piece.split('\n').forEach((line, i) => {
			const continued = i === 0 && this.insideLine
			if (!continued) this.lineHasText = false
			if (!this.lineHasText && line.trim() !== '') {
				this.nonEmpty++
				this.lineHasText = true
			}
			const speakerLine = continued ? null : parseSpeakerLine(line)
			if (speakerLine) {
				const key = speakerLine.speaker.toLowerCase()
				if (ROLES.includes(key) || this.speakers.has(key)) this.conversation = true
				this.speakers.add(key)
				if (++this.turns <= 3) this.firstTurns.push({ speaker: key, words: 0, lastLine: '' })
			}
			if (this.turns > 0 && this.turns <= 3) this.said(speakerLine ? speakerLine.text : line)
		})
		this.insideLine = piece !== '' && !piece.endsWith('\n')
	}

	isTranscript(): boolean {
		if (this.turns < 2 || this.turns * 2 <= this.nonEmpty) return false
		if (this.conversation) return true
		return (
			this.turns === 2 &&
			this.firstTurns.every(
				(turn) => !FIELD_LABELS.has(turn.speaker) && (turn.words >= 4 || SENTENCE_END.test(turn.lastLine)),
			)
		)
	}

	private said(text: string) {
		const turn = this.firstTurns.at(-1)!
		for (const _ of text.matchAll(/\S+/g)) if (++turn.words >= 4) break
		if (text.trim() !== '') turn.lastLine = text.trimEnd()
	}
}

export function isTranscript(text: string): boolean {
	return parseTranscript(text) !== null
}

/** Labels of `Field: value` blocks (records, headers, front matter) that never name a speaker. */
const FIELD_LABELS = new Set(
	(
		'title author authors year date time subject from to cc bcc name email phone address status type category ' +
		'categories tags tag summary description note notes location price id url link version source topic owner ' +
		'project priority due deadline company role department team manager created updated published language ' +
		'genre isbn publisher page pages duration attendees agenda re fwd question answer q a result total'
	).split(' '),
)

/** A turn that reads as something said: a sentence's end, or several words (TranscriptTally counts them apart). */
const SENTENCE_END = /[.!?]["')\]]*$/u
const SPEECH = new RegExp(`${SENTENCE_END.source}|(?:\\S+\\s+){3}\\S`, 'u')

/**
 * A conversation: a known role, someone who speaks more than once, or a two-message exchange of speakers that are
 * not field labels, each saying a sentence rather than a value (longer runs of one-off labels are lists of steps).
 */
function looksLikeConversation(turns: RawTurn[]): boolean {
	const seen = new Set<string>()
	for (const { speaker } of turns) {
		const key = speaker.toLowerCase()
		if (ROLES.includes(key) || seen.has(key)) return true
		seen.add(key)
	}
	return (
		turns.length === 2 &&
		turns.every((turn) => !FIELD_LABELS.has(turn.speaker.toLowerCase()) && SPEECH.test(trimLines(turn.lines)))
	)
}

function trimLines(lines: string[]): string {
	return lines
		.map((line) => line.trimEnd())
		.join('\n')
		.trim()
}
