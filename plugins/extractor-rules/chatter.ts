import { EVALUATIVE_LEMMAS, LIGHT_VERBS, SOCIAL_LEMMAS, SOCIAL_PHRASES } from './lexicon.ts'
import { isClauseBreak, isWord, makeToken, type Token } from './tokens.ts'

export type Verdict =
	| { kind: 'fact'; tokens: Token[] }
	| { kind: 'chatter'; reason: 'empty' | 'social' | 'question' | 'request' | 'reaction' | 'fragment' }

export interface JudgeOptions {
	/** Chat turns must have a verb; document lines may be short noun phrases ("Favourite food: sushi"). */
	conversational: boolean
}

/** Question openers that wrap a statement: "Did you know I moved to Paris?" states that the speaker moved. */
const STATEMENT_FRAMES = [
	['did', 'you', 'know'],
	['do', 'you', 'know'],
	['did', 'i', 'tell', 'you'],
	['have', 'you', 'heard'],
	['did', 'you', 'hear'],
	['guess', 'what'],
	['remember', 'when'],
	['you', 'know', 'what'],
]

/** Subjects whose description is a fact about a person of the chat: "I'm vegan", "you're pregnant". */
const PERSONAL_SUBJECTS = new Set(['i', 'you', 'we'])

/**
 * Tells a sentence that states something from chatter, with part-of-speech cues from wink-nlp and the small lexicons
 * in lexicon.ts: greetings, thanks and other social formulas (unless a clause with content follows them), questions
 * (unless they wrap a statement), requests (a leading base-form verb), reactions (no content word besides
 * evaluations: "Wow, that's great!"), and fragments (under three words, or no verb in a chat turn). A fact may come
 * back shortened to the statement inside it.
 */
export function judgeSentence(tokens: Token[], options: JudgeOptions): Verdict {
	const words = tokens.filter(isWord)
	if (words.length === 0) return { kind: 'chatter', reason: 'empty' }
	if (opensWithSocialFormula(tokens)) {
		const rest = clauseAfterFormula(tokens)
		return rest ? judgeSentence(rest, options) : { kind: 'chatter', reason: 'social' }
	}
	if (tokens.at(-1)?.value === '?' || tokens.some((token) => token.value === '?')) {
		const statement = statementInQuestion(tokens)
		return statement ? judgeSentence(statement, options) : { kind: 'chatter', reason: 'question' }
	}
	if (isRequest(words) || showsMedia(words)) return { kind: 'chatter', reason: 'request' }
	if (opensWithEvaluation(words) || endsWithImpression(words)) return { kind: 'chatter', reason: 'reaction' }
	if (words.length < 3) return { kind: 'chatter', reason: 'fragment' }
	if (options.conversational && !words.some((word, index) => isVerbLike(word, words[index - 1]))) {
		return { kind: 'chatter', reason: 'fragment' }
	}
	if (!hasContent(tokens)) return { kind: 'chatter', reason: 'reaction' }
	return { kind: 'fact', tokens }
}

const SUBJECT_PRONOUNS = new Set(['i', 'you', 'we', 'he', 'she', 'they', 'it'])

/** A verb, or what wink-nlp took for an adjective right after a subject pronoun ("I baked bread"). */
function isVerbLike(word: Token, previous: Token | undefined): boolean {
	if (word.pos === 'VERB' || word.pos === 'AUX') return true
	return previous !== undefined && SUBJECT_PRONOUNS.has(previous.normal) && /ed$/.test(word.normal)
}

/** A content word: a noun, name, number or non-light verb that is not an evaluation; or a describing adjective about a person. */
export function hasContent(tokens: Token[]): boolean {
	let personal = false
	for (const token of tokens) {
		if (token.pos === 'PRON' && PERSONAL_SUBJECTS.has(token.normal)) personal = true
		if (token.role === 'speaker' || token.role === 'addressee') personal = true
		if (EVALUATIVE_LEMMAS.has(token.lemma) || EVALUATIVE_LEMMAS.has(token.normal)) continue
		// "Next Friday works": a date alone is when, not what.
		if (token.entity === 'DATE' || token.entity === 'TIME' || token.entity === 'DURATION') continue
		if (token.pos === 'NOUN' || token.pos === 'PROPN' || token.pos === 'NUM') return true
		if (token.pos === 'VERB' && !LIGHT_VERBS.has(token.lemma)) return true
		if (token.pos === 'ADJ' && personal) return true
	}
	return false
}

function opensWithSocialFormula(tokens: Token[]): boolean {
	const first = tokens[0]
	if (!first) return false
	if (SOCIAL_LEMMAS.has(first.lemma) || SOCIAL_LEMMAS.has(first.normal)) return true
	return SOCIAL_PHRASES.some((phrase) => phrase.every((word, index) => tokens[index]?.normal === word))
}

/** "Sorry to hear that, but I found a new job": the clause after the formula, when it has a subject and a verb. */
function clauseAfterFormula(tokens: Token[]): Token[] | null {
	const breakAt = tokens.findIndex(
		(token, index) => index > 0 && (isClauseBreak(token) || token.normal === 'but' || token.normal === 'and'),
	)
	if (breakAt === -1) return null
	let start = breakAt + 1
	while (tokens[start] && (isClauseBreak(tokens[start]) || tokens[start]!.normal === 'but')) start++
	const rest = tokens.slice(start)
	return hasClause(rest) ? [{ ...rest[0]!, space: '' }, ...rest.slice(1)] : null
}

function hasClause(tokens: Token[]): boolean {
	const subjectAt = tokens.findIndex((token) => token.pos === 'PRON' || token.pos === 'PROPN' || token.pos === 'NOUN')
	return subjectAt !== -1 && tokens.slice(subjectAt + 1).some((token) => token.pos === 'VERB' || token.pos === 'AUX')
}

function statementInQuestion(tokens: Token[]): Token[] | null {
	const frame = STATEMENT_FRAMES.find((words) => words.every((word, index) => tokens[index]?.normal === word))
	if (!frame) return null
	let start = frame.length
	if (tokens[start]?.normal === 'that' || isClauseBreak(tokens[start])) start++
	const body = tokens.slice(start).filter((token) => token.value !== '?')
	// The wrapped statement has its own subject: "Did you know I moved", not "Do you know any organizations".
	const subject = body[0]
	if (!subject || !(subject.pos === 'PRON' || subject.pos === 'PROPN') || !hasClause(body)) return null
	if (subject.normal === 'what' || subject.normal === 'how') return null
	return [{ ...body[0]!, space: '' }, ...body.slice(1), makeToken('.', 'PUNCT', '.', '')]
}

/** Nouns for what a chat shares to look at. */
const MEDIA_NOUNS = new Set([
	'pic',
	'pics',
	'photo',
	'photos',
	'picture',
	'pictures',
	'snap',
	'selfie',
	'screenshot',
	'image',
	'video',
])

/** "Here's a pic of the school", "This is a photo from the trip": showing something, not saying something. */
function showsMedia(words: Token[]): boolean {
	const [first, second] = words
	const opens = (first?.normal === 'here' || first?.normal === 'this') && second?.lemma === 'be'
	return opens && words.slice(2, 6).some((word) => MEDIA_NOUNS.has(word.normal))
}

/** "Check this out", "Don't forget to rest", "Please call me": a base-form verb opens the sentence. */
function isRequest(words: Token[]): boolean {
	let index = 0
	if (words[index]?.normal === 'please') index++
	if (words[index]?.normal === 'do' && words[index + 1]?.normal === 'not') index += 2
	const verb = words[index]
	return verb !== undefined && verb.pos === 'VERB' && verb.normal === verb.lemma && !verb.normal.endsWith('ing')
}

const IMPRESSION_VERBS = new Set(['sound', 'look', 'seem'])

/** "That charity race sounds great", "Your store looks amazing": an impression of something, not a fact about it. */
function endsWithImpression(words: Token[]): boolean {
	const verbAt = words.findIndex((word) => IMPRESSION_VERBS.has(word.lemma) && word.pos === 'VERB')
	if (verbAt === -1) return false
	let index = verbAt + 1
	while (words[index]?.pos === 'ADV') index++
	const impression = words[index]
	return impression !== undefined && EVALUATIVE_LEMMAS.has(impression.lemma) && index >= words.length - 2
}

/** "Glad to hear it", "So cool you found a group", "Must be awesome", "Great job": an evaluation opens the sentence. */
function opensWithEvaluation(words: Token[]): boolean {
	let index = 0
	while ((words[index]?.pos === 'ADV' || words[index]?.pos === 'AUX') && index < 3) index++
	const word = words[index]
	// wink-nlp often tags a capitalised first word as a proper noun ("Glad to be part of it").
	const adjective =
		word !== undefined && (word.pos === 'ADJ' || (index === 0 && (word.pos === 'PROPN' || word.pos === 'NOUN')))
	return adjective && EVALUATIVE_LEMMAS.has(word.normal) && words[index + 1]?.pos !== 'NOUN'
}
