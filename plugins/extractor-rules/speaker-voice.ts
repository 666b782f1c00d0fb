import { nameTokens, type Person, possessiveTokens } from './person.ts'
import type { Token, TokenRole } from './tokens.ts'
import { agreeWithThirdPersonSingular } from './verb-agreement.ts'

/** Who the pronouns of one sentence stand for. */
export interface Voice {
	/** Who "I" is; null leaves first person as written. */
	speaker: Person | null
	/** Who "you" is, when that is safe to say (a two-person chat); null leaves second person as written. */
	addressee: Person | null
	/** What "we" means: the speaker's family, the speaker and the addressee, or the speaker and others; null keeps it. */
	group: 'family' | 'pair' | 'others' | null
}

type PronounCase = 'subject' | 'object' | 'determiner' | 'possessive' | 'reflexive'

const PRONOUN_CASES: Record<string, PronounCase> = {
	i: 'subject',
	you: 'subject',
	me: 'object',
	my: 'determiner',
	your: 'determiner',
	mine: 'possessive',
	yours: 'possessive',
	myself: 'reflexive',
	yourself: 'reflexive',
}
const FIRST_PERSON = new Set(['i', 'me', 'my', 'mine', 'myself'])
const SECOND_PERSON = new Set(['you', 'your', 'yours', 'yourself'])
const FIRST_PERSON_PLURAL = new Set(['we', 'us', 'our', 'ours', 'ourselves'])
const COORDINATORS = new Set(['and', 'or', '&', 'nor'])

/**
 * Rewrites first person (and, where it names someone, second person) into the third person: "I am" -> "Caroline is",
 * "my" -> "Caroline's", and "their"/"them" once the name has been said; "we" -> "Caroline and their family" (or "and
 * Melanie", "and others"). The verb after a rewritten subject agrees ("I have" -> "Caroline has").
 */
export function rewriteVoice(source: Token[], voice: Voice): Token[] {
	// A copy: agreement rewrites verbs ahead of the loop.
	const tokens = [...source]
	const out: Token[] = []
	const named = new Set<TokenRole>()
	for (const [index, token] of tokens.entries()) {
		const { normal } = token
		// "me-time" is a word of its own.
		const hyphenated = tokens[index + 1]?.value === '-' && tokens[index + 1]?.space === ''
		const isPronoun = (token.pos === 'PRON' || token.pos === 'PROPN' || normal === 'i') && !hyphenated
		let person: Person | null = null
		let role: TokenRole = 'speaker'
		if (isPronoun && FIRST_PERSON.has(normal)) person = voice.speaker
		else if (
			isPronoun &&
			SECOND_PERSON.has(normal) &&
			(isSpecificYou(tokens, index) || (normal === 'yourself' && named.has('addressee')))
		) {
			person = voice.addressee
			role = 'addressee'
		}
		if (person) {
			const pronounCase = normal === 'you' && isObjectPosition(tokens, index) ? 'object' : PRONOUN_CASES[normal]!
			out.push(...personForm(person, pronounCase, named.has(role), token.space, role))
			named.add(role)
			if (pronounCase === 'subject') agreeNextVerb(tokens, index)
			continue
		}
		if (isPronoun && FIRST_PERSON_PLURAL.has(normal) && voice.speaker && voice.group) {
			out.push(...groupForm(voice, normal, named.has('group'), token.space))
			named.add('group')
			continue
		}
		out.push(token)
	}
	return out
}

/**
 * The person in the pronoun's case: the name the first time ("Caroline", "Caroline's"), then "them", "their",
 * "theirs", "themselves" (a subject keeps the name, so its verb can agree in the singular).
 */
function personForm(person: Person, pronounCase: PronounCase, alreadyNamed: boolean, space: string, role: TokenRole) {
	const word = (value: string): Token[] => [{ value, normal: value, lemma: value, pos: 'PRON', space, role }]
	switch (pronounCase) {
		case 'subject':
			return nameTokens(person, space, role)
		case 'object':
			return alreadyNamed ? word('them') : nameTokens(person, space, role)
		case 'determiner':
			return alreadyNamed ? word('their') : possessiveTokens(person, space, role)
		case 'possessive':
			return alreadyNamed ? word('theirs') : possessiveTokens(person, space, role)
		case 'reflexive':
			return alreadyNamed ? word('themselves') : nameTokens(person, space, role)
	}
}

/** "we", "us", "our": the group named once ("Caroline and their family"), then "they", "them", "their". */
function groupForm(voice: Voice, normal: string, groupNamed: boolean, space: string): Token[] {
	const speaker = voice.speaker!
	const word = (value: string): Token[] => [{ value, normal: value, lemma: value, pos: 'PRON', space, role: 'group' }]
	const partner =
		voice.group === 'family'
			? 'their family'
			: voice.group === 'pair' && voice.addressee
				? voice.addressee.name
				: 'others'
	const group: Person = { name: `${speaker.name} and ${partner}` }
	if (normal === 'ourselves') return word('themselves')
	if (normal === 'our' || normal === 'ours') {
		if (groupNamed) return word(normal === 'our' ? 'their' : 'theirs')
		return possessiveTokens(voice.group === 'pair' ? group : speaker, space, 'group')
	}
	// Said once, the group is "they" after that.
	if (groupNamed) return word(normal === 'we' ? 'they' : 'them')
	return nameTokens(group, space, 'group')
}

/**
 * Makes the finite verb after a rewritten "I" or "you" agree with a third person singular subject. Skips adverbs
 * ("I really love"); leaves coordinated subjects alone ("Sarah and I are").
 */
function agreeNextVerb(tokens: Token[], subjectIndex: number): void {
	if (isCoordinatedSubject(tokens, subjectIndex)) return
	let verbIndex = subjectIndex + 1
	while (tokens[verbIndex]?.pos === 'ADV' && verbIndex < subjectIndex + 3) verbIndex++
	const verb = tokens[verbIndex]
	if (!verb) return
	const agreed = agreeWithThirdPersonSingular(verb, verbIndex === subjectIndex + 1)
	if (agreed) tokens[verbIndex] = agreed
}

/**
 * "Sarah and I are", "I and my wife were": the verb agrees with the pair, not with the pronoun. Not when the words
 * before "and" end a clause of their own ("I moved to Lisbon and I need ..."): a coordinated subject opens its clause.
 */
function isCoordinatedSubject(tokens: Token[], subjectIndex: number): boolean {
	if (COORDINATORS.has(tokens[subjectIndex + 1]?.normal ?? '')) return true
	if (!COORDINATORS.has(tokens[subjectIndex - 1]?.normal ?? '')) return false
	let start = subjectIndex - 2
	if (start < 0 || !NOMINAL_TAGS.has(tokens[start]!.pos)) return false
	while (start > 0 && (NOMINAL_TAGS.has(tokens[start - 1]!.pos) || tokens[start - 1]!.normal === "'s")) start--
	const opener = tokens[start - 1]
	return opener === undefined || opener.pos === 'PUNCT' || opener.pos === 'SCONJ' || opener.pos === 'CCONJ'
}

const NOMINAL_TAGS = new Set(['NOUN', 'PROPN', 'PRON', 'DET', 'ADJ', 'NUM'])

/** Words after which "you" means anyone: "it lets you move", "if you ask me". */
const GENERIC_YOU_BEFORE = new Set([
	'let',
	'lets',
	'make',
	'makes',
	'help',
	'helps',
	'if',
	'when',
	'whenever',
	'unless',
])

/**
 * In a chat, "you" is the addressee except where it means anyone: after "lets", "makes", "helps", "if", "when", and
 * in the fixed "you know" / "you never know". A reflexive ("yourself") follows its clause's subject, so it is
 * rewritten only once the addressee has been named.
 */
function isSpecificYou(tokens: Token[], index: number): boolean {
	const token = tokens[index]!
	if (token.normal === 'yourself' || token.normal === 'yourselves') return false
	if (token.normal !== 'you') return true
	const previous = tokens[index - 1]
	if (previous && GENERIC_YOU_BEFORE.has(previous.normal)) return false
	const next = tokens[index + 1]
	if (next?.normal === 'know' || (next?.normal === 'never' && tokens[index + 2]?.normal === 'know')) return false
	return true
}

function isObjectPosition(tokens: Token[], index: number): boolean {
	const previous = tokens[index - 1]
	return previous !== undefined && (previous.pos === 'VERB' || previous.pos === 'ADP')
}
