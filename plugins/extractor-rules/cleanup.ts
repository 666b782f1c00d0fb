import { DISCOURSE_MARKERS, DISCOURSE_PHRASES, EVALUATIVE_LEMMAS } from './lexicon.ts'
import { isClauseBreak, isSentenceEnd, isWord, type Token } from './tokens.ts'

/**
 * Lower-case names of the people in a conversation, to tell a vocative ("Thanks, Mel!") from a mention. A name
 * matches its own first three letters or more ("Mel" for "Melanie").
 */
export type Participants = string[]

/** The token is a participant's name, or its start written as a name ("Mel"). */
export function isParticipant(token: Token, participants: Participants): boolean {
	if (token.pos !== 'PROPN' && token.pos !== 'NOUN') return false
	const word = token.normal
	return (
		word.length >= 3 &&
		participants.some((name) => name === word || (name.startsWith(word) && /^\p{Lu}/u.test(token.value)))
	)
}

/**
 * Removes what frames a chat sentence without carrying content: leading interjections, discourse markers and
 * conjunctions ("Wow,", "Well,", "By the way,", "And"), a leading one-word comment before a comma ("Unfortunately,",
 * "Cool,"), vocatives (a participant's name addressed: "Hey Mel!", "Thanks, Melanie"), a reporting frame ("I wanted
 * to let you know that ..."), trailing markers (", you know").
 */
export function stripDiscourse(source: Token[], participants: Participants): Token[] {
	let tokens = source.filter((_token, index) => !isVocative(source, index, participants))
	tokens = dropDanglingCommas(tokens)
	let changed = true
	while (changed && tokens.length > 0) {
		changed = false
		const phrase = DISCOURSE_PHRASES.find((words) => startsWith(tokens, words))
		const first = tokens[0]!
		let cut = 0
		if (phrase) cut = phrase.length
		else if (first.pos === 'INTJ' || DISCOURSE_MARKERS.has(first.normal) || first.pos === 'CCONJ') cut = 1
		else if (isLeadingComment(tokens)) cut = 1
		else if (isClauseBreak(first) || (isSentenceEnd(first) && tokens.length > 1)) cut = 1
		if (cut > 0 && !tokens.slice(0, cut).some((token) => token.entity === 'DATE' || token.entity === 'TIME')) {
			tokens = tokens.slice(cut)
			changed = true
		}
	}
	tokens = dropReportingFrame(tokens)
	tokens = dropTrailingMarkers(tokens)
	if (tokens[0]) tokens[0] = { ...tokens[0], space: '' }
	return tokens
}

/** "I just wanted to let you know (that) I moved": the words that announce a statement, up to the statement. */
const REPORTING_FRAMES = [
	['let', 'you', 'know'],
	['tell', 'you'],
	['so', 'you', 'know'],
]
const MAX_FRAME_START = 6

function dropReportingFrame(tokens: Token[]): Token[] {
	for (const frame of REPORTING_FRAMES) {
		for (let start = 0; start <= MAX_FRAME_START && start < tokens.length; start++) {
			if (!frame.every((word, offset) => tokens[start + offset]?.normal === word)) continue
			let end = start + frame.length
			if (tokens[end]?.normal === 'that' || isClauseBreak(tokens[end])) end++
			const rest = tokens.slice(end)
			const subject = rest[0]
			if (!subject || !(subject.pos === 'PRON' || subject.pos === 'PROPN')) return tokens
			return [{ ...subject, space: '' }, ...rest.slice(1)]
		}
	}
	return tokens
}

/** "Unfortunately, ..." / "Cool, ...": one adjective, adverb or interjection set off by a comma. */
function isLeadingComment(tokens: Token[]): boolean {
	const [first, second] = tokens
	if (!first || !second || first.entity) return false
	// A capitalised first word is often tagged a proper noun: "Great, thanks" -- but "Paris, France" is a name.
	const comment =
		first.pos === 'ADV' || first.pos === 'ADJ' || first.pos === 'INTJ' || EVALUATIVE_LEMMAS.has(first.normal)
	return comment && isClauseBreak(second)
}

function isVocative(tokens: Token[], index: number, participants: Participants): boolean {
	const token = tokens[index]!
	if (!isParticipant(token, participants)) return false
	const previous = tokens[index - 1]
	const next = tokens[index + 1]
	if (next && (next.normal === "'s" || next.pos === 'PART')) return false
	const nextIsBreak = next === undefined || isClauseBreak(next) || isSentenceEnd(next)
	if (!nextIsBreak) return false
	if (previous === undefined || previous.pos === 'PUNCT' || previous.pos === 'INTJ') return true
	if (DISCOURSE_MARKERS.has(previous.normal)) return true
	// "Sorry about your job Jon, but ...", "That is great Jon!": a name closing a phrase.
	return previous.pos === 'NOUN' || previous.pos === 'ADJ'
}

/** Commas left at the start, doubled, or before the final mark after vocatives were removed. */
function dropDanglingCommas(tokens: Token[]): Token[] {
	return tokens.filter((token, index) => {
		if (!isClauseBreak(token)) return true
		const previous = tokens[index - 1]
		const next = tokens[index + 1]
		return previous !== undefined && !isClauseBreak(previous) && next !== undefined && !isSentenceEnd(next)
	})
}

function dropTrailingMarkers(source: Token[]): Token[] {
	let tokens = source
	let end = tokens.length
	while (end > 0 && !isWord(tokens[end - 1]!)) end--
	const body = tokens.slice(0, end)
	const tail = tokens.slice(end)
	let changed = true
	let words = body
	while (changed && words.length > 1) {
		changed = false
		const phrase = DISCOURSE_PHRASES.find((phrase) => endsWith(words, phrase))
		const last = words.at(-1)!
		let cut = 0
		if (phrase && isClauseBreak(words[words.length - phrase.length - 1])) cut = phrase.length + 1
		else if (
			(last.pos === 'INTJ' || DISCOURSE_MARKERS.has(last.normal)) &&
			!['so', 'well', 'no', 'yes'].includes(last.normal)
		)
			cut = isClauseBreak(words.at(-2)) ? 2 : 1
		if (cut > 0) {
			words = words.slice(0, -cut)
			changed = true
		}
	}
	tokens = [...words, ...tail]
	return tokens
}

/** The words open the sentence and stand apart from it (a comma or the end follows). */
function startsWith(tokens: Token[], words: string[]): boolean {
	if (!words.every((word, index) => tokens[index]?.normal === word)) return false
	const next = tokens[words.length]
	return next === undefined || isClauseBreak(next) || isSentenceEnd(next)
}

function endsWith(tokens: Token[], words: string[]): boolean {
	const offset = tokens.length - words.length
	return offset >= 0 && words.every((word, index) => tokens[offset + index]?.normal === word)
}
