import { isPastParticiple } from './contractions.ts'
import { isClauseBreak, makeToken, type Token } from './tokens.ts'

const MODALS = new Set(['can', 'could', 'will', 'would', 'should', 'must', 'might', 'ca', 'wo'])
const INTENT_VERBS = new Set(['want', 'need', 'have', 'hope', 'plan', 'try', 'love', 'like'])

/**
 * Chat sentences often drop their subject: "Lost my job yesterday", "Been to Rome once", "Finishing up the
 * choreography", "Gonna start a studio", "Can't wait". The speaker is the subject, so "I" (and "am" or "have" where
 * the verb needs it) is put back, for the voice rewrite to name them. Sentences that start with a base-form verb are
 * left alone: they are requests ("Check this out").
 */
export function addImpliedSubject(tokens: Token[]): Token[] {
	let verbAt = 0
	while ((tokens[verbAt]?.pos === 'ADV' || tokens[verbAt]?.normal === 'never') && verbAt < 2) verbAt++
	const verb = tokens[verbAt]
	if (!verb || tokens.at(-1)?.value === '?') return tokens
	const next = tokens[verbAt + 1]
	let inserted: string[] = []
	if (verb.normal === 'been') inserted = ['I', 'have']
	else if (verb.normal === 'going' && next?.normal === 'to') inserted = ['I', 'am']
	else if (verb.pos === 'VERB' && verb.normal.endsWith('ing') && isVerbPhraseAlone(tokens, verbAt + 1))
		inserted = ['I', 'am']
	// "Really made me think": with "me" as the object, the subject was something else.
	else if (verb.pos === 'VERB' && isPastParticiple(verb) && next?.normal !== 'me') inserted = ['I']
	else if (verb.pos === 'VERB' && INTENT_VERBS.has(verb.normal) && next?.normal === 'to') inserted = ['I']
	else if (verb.pos === 'AUX' && MODALS.has(verb.normal) && verbAt === 0 && next?.lemma !== 'be') inserted = ['I']
	else if (verb.normal === 'had' && next?.pos !== 'VERB') inserted = ['I']
	if (inserted.length === 0) return tokens
	const subject = inserted.map((word, index) =>
		makeToken(
			word,
			index === 0 ? 'PRON' : 'AUX',
			word === 'I' ? 'i' : word === 'am' ? 'be' : 'have',
			index === 0 ? '' : ' ',
		),
	)
	const first = tokens[0]!
	const lowered = first.pos === 'PROPN' ? first.value : first.value[0]!.toLowerCase() + first.value.slice(1)
	return [...subject, { ...first, value: lowered, space: ' ' }, ...tokens.slice(1)]
}

/**
 * "Finishing up the choreography.", "Researching adoption agencies - it's been a dream": the -ing phrase is the whole
 * first clause. Not when a finite verb follows in the clause ("Painting is fun": the -ing word is the subject) or the
 * next clause has its own person ("Growing up, I saw ...", "Taking in kids - you're so kind").
 */
function isVerbPhraseAlone(tokens: Token[], from: number): boolean {
	const breakAt = tokens.findIndex((token, index) => index >= from && isClauseBreak(token))
	const clause = tokens.slice(from, breakAt === -1 ? undefined : breakAt)
	if (breakAt !== -1 && ['i', 'we', 'you'].includes(tokens[breakAt + 1]?.normal ?? '')) return false
	return !clause.some(
		(token, index) =>
			token.pos === 'AUX' ||
			(token.pos === 'VERB' &&
				clause[index - 1]?.normal !== 'to' &&
				!token.normal.endsWith('ing') &&
				token.normal !== token.lemma),
	)
}
