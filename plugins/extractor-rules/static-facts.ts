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
	if (key.attribute) {
		if (DATED_STATES.some((prefix) => key.attribute!.startsWith(prefix)) && eventDates.length > 0) return false
		return KEEPS_STATE.has(key.attribute) || !describesPassingState(tokens)
	}
	if (!key.subject || eventDates.length > 0) return false
	return isIdentityStatement(tokens)
}

/** Attributes whose statement is itself an adjective ("Alex is married"). */
const KEEPS_STATE = new Set(['relationship status', 'age'])

/** "Melanie's kids are so excited about summer break": the sentence's verb is "be" with a feeling or state. */
function describesPassingState(tokens: Token[]): boolean {
	const verbAt = tokens.findIndex((token) => token.pos === 'AUX' || token.pos === 'VERB')
	if (tokens[verbAt]?.lemma !== 'be') return false
	let index = verbAt + 1
	while (tokens[index]?.pos === 'ADV') index++
	return tokens[index]?.pos === 'ADJ'
}

/** "<person> is a|an <noun>" or "<person> is <describing adjective>", in the present tense, not negated. */
function isIdentityStatement(tokens: Token[]): boolean {
	const verbAt = tokens.findIndex((token) => token.pos === 'AUX' || token.pos === 'VERB')
	const verb = tokens[verbAt]
	if (!verb || (verb.normal !== 'is' && verb.normal !== 'are')) return false
	const subject = tokens.slice(0, verbAt)
	if (!subject.some((token) => token.role === 'speaker' || token.role === 'addressee' || token.pos === 'PROPN'))
		return false
	let index = verbAt + 1
	while (tokens[index]?.pos === 'ADV') index++
	const next = tokens[index]
	if (!next || next.normal === 'not' || next.normal === "n't") return false
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
