import type { FactKey } from './fact-keys.ts'
import { EVALUATIVE_LEMMAS } from './lexicon.ts'
import type { Token } from './tokens.ts'

/** Attributes that may describe a passing state; durable only when the statement names no date. */
const DATED_STATES = ['health:']

/**
 * Durable facts feed the profile: identity, relationships, work, places, preferences, long-running goals. Every
 * attribute of attribute-rules.ts is one of those (health only without a date: "recovering from flu last week" is
 * passing). Without an attribute, an identity statement in the present ("Caroline is a transgender woman",
 * "Alex is vegan") is durable; everything else (events, feelings, plans with a date) is not.
 */
export function isStaticFact(tokens: Token[], key: FactKey, eventDates: string[]): boolean {
	// "Caroline would love to check them out": a wish in the moment, not a preference.
	if (isConditional(tokens)) return false
	if (key.attribute) {
		// "Caroline wanted to capture their unity", "loved reading as a kid": what someone wanted or liked then.
		if (CURRENT_ONLY.some((prefix) => key.attribute!.startsWith(prefix)) && isPastTense(tokens)) return false
		if (DATED_STATES.some((prefix) => key.attribute!.startsWith(prefix)) && eventDates.length > 0) return false
		return KEEPS_STATE.has(key.attribute) || !describesPassingState(tokens)
	}
	if (!key.subject || eventDates.length > 0) return false
	return isIdentityStatement(tokens)
}

/** Wants and likes are durable only while they hold: stated in the past they are history. */
const CURRENT_ONLY = ['goal', 'likes', 'dislikes']

/** Words that turn "is <adjective>" into an exclamation ("Caroline is so strong", "Art is such a joy"). */
const INTENSIFIERS = new Set(['so', 'such', 'really', 'very', 'super', 'totally', 'truly', 'incredibly', 'too', 'just'])

const MODALS = new Set(['would', 'could', 'might', "'d"])

/** Common irregular past forms of the verbs statements start with (regular ones end in -ed). */
const IRREGULAR_PAST = new Set(['was', 'were', 'had', 'did', 'went', 'made', 'got', 'felt', 'thought', 'said'])

function mainVerbIndex(tokens: Token[]): number {
	return tokens.findIndex((token) => token.pos === 'AUX' || token.pos === 'VERB')
}

function isConditional(tokens: Token[]): boolean {
	const verb = tokens[mainVerbIndex(tokens)]
	return verb !== undefined && MODALS.has(verb.normal)
}

function isPastTense(tokens: Token[]): boolean {
	const verb = tokens[mainVerbIndex(tokens)]
	if (!verb) return false
	return IRREGULAR_PAST.has(verb.normal) || (verb.normal.endsWith('ed') && verb.normal !== verb.lemma)
}

/** Attributes whose statement is itself an adjective ("Alex is married"). */
const KEEPS_STATE = new Set(['relationship status', 'age'])

/** "Melanie's kids are so excited about summer break": the sentence's verb is "be" with a feeling or state. */
function describesPassingState(tokens: Token[]): boolean {
	const verbAt = mainVerbIndex(tokens)
	if (tokens[verbAt]?.lemma !== 'be') return false
	let index = verbAt + 1
	while (tokens[index]?.pos === 'ADV') index++
	return tokens[index]?.pos === 'ADJ'
}

/** "<person> is a|an <noun>" or "<person> is <describing adjective>", in the present tense, not negated. */
function isIdentityStatement(tokens: Token[]): boolean {
	const verbAt = mainVerbIndex(tokens)
	const verb = tokens[verbAt]
	if (!verb || (verb.normal !== 'is' && verb.normal !== 'are')) return false
	const subject = tokens.slice(0, verbAt)
	if (!subject.some((token) => token.role === 'speaker' || token.role === 'addressee' || token.pos === 'PROPN'))
		return false
	let index = verbAt + 1
	while (tokens[index]?.pos === 'ADV') {
		if (INTENSIFIERS.has(tokens[index]!.normal)) return false
		index++
	}
	const next = tokens[index]
	if (!next || next.normal === 'not' || next.normal === "n't" || INTENSIFIERS.has(next.normal)) return false
	if (next.normal === 'a' || next.normal === 'an') {
		const rest = tokens.slice(index + 1)
		const noun = rest.find((token) => token.pos === 'NOUN' || token.pos === 'PROPN')
		return noun !== undefined && !EVALUATIVE_LEMMAS.has(noun.lemma)
	}
	// "Alex is vegan" (wink-nlp may read the word as a noun); not "Alex is tired of it".
	const describing = next.pos === 'ADJ' || (next.pos === 'NOUN' && !isWordAfter(tokens, index, 'NOUN'))
	return describing && !EVALUATIVE_LEMMAS.has(next.lemma) && tokens[index + 1]?.pos !== 'ADP'
}

function isWordAfter(tokens: Token[], index: number, pos: Token['pos']): boolean {
	return tokens[index + 1]?.pos === pos
}
