import {
	FAVOURITE_WORDS,
	OCCUPATIONS,
	RELATION_NOUNS,
	RELATION_SYNONYMS,
	RELATIONSHIP_STATUSES,
	VERB_RULES,
} from './attribute-rules.ts'
import { isWord, renderTokens, type Token } from './tokens.ts'

/** Who a statement is about and which attribute of theirs it states. */
export interface FactKey {
	subject: string | null
	attribute: string | null
	value: string | null
}

interface Subject {
	name: string
	/** Index of the first token after the subject phrase. */
	end: number
	/** The subject is "<name>'s <relation noun> ..." */
	possessive: boolean
}

const NEGATIONS = new Set(['not', "n't", 'never', 'no'])
const VALUE_STOPS = new Set([
	'which',
	'who',
	'that',
	'where',
	'when',
	'because',
	'since',
	'but',
	'and',
	'or',
	'so',
	'while',
	'as',
])
const MAX_VALUE_WORDS = 6

/**
 * The subject (the statement's person, or its leading proper noun), and the attribute and value when the sentence
 * matches one of the patterns in attribute-rules.ts by lemma ("moved to", "lives in", "relocated to" -> residence).
 */
export function factKey(tokens: Token[]): FactKey {
	const subject = findSubject(tokens)
	if (!subject) return { subject: null, attribute: null, value: null }
	const match = relationMatch(tokens, subject) ?? verbMatch(tokens, subject) ?? copulaMatch(tokens, subject)
	if (!match || isNegated(tokens, subject.end, match.at)) return { subject: subject.name, attribute: null, value: null }
	return { subject: subject.name, attribute: match.attribute, value: match.value }
}

interface Match {
	attribute: string
	value: string
	/** Where the pattern starts, to check for a negation between subject and pattern. */
	at: number
}

function findSubject(tokens: Token[]): Subject | null {
	let index = 0
	while (
		index < tokens.length &&
		(tokens[index]!.role === 'date' || tokens[index]!.pos === 'ADV' || tokens[index]!.pos === 'PUNCT')
	)
		index++
	const first = tokens[index]
	if (!first) return null
	if (first.role === 'speaker' || first.role === 'addressee' || first.role === 'group') {
		const role = first.role
		let end = index
		while (tokens[end]?.role === role && tokens[end]!.normal !== "'s" && tokens[end]!.normal !== 'and') end++
		const name = tokens
			.slice(index, end)
			.map((token) => token.value)
			.join(' ')
		const possessive = tokens[end]?.normal === "'s"
		return { name, end: possessive ? end + 1 : skipGroupTail(tokens, end, role), possessive }
	}
	if (first.pos === 'PROPN' || (first.pos === 'DET' && tokens[index + 1]?.pos === 'PROPN')) {
		let start = first.pos === 'DET' ? index + 1 : index
		let end = start
		while (
			tokens[end]?.pos === 'PROPN' ||
			(tokens[end]?.normal === 'of' && tokens[end + 1]?.pos === 'PROPN' && end > start)
		)
			end++
		if (end === start) return null
		const nextIsVerb = tokens[end]?.pos === 'VERB' || tokens[end]?.pos === 'AUX' || tokens[end]?.pos === 'ADV'
		const possessive = tokens[end]?.normal === "'s"
		if (!nextIsVerb && !possessive) return null
		start = Math.max(start, 0)
		return { name: renderTokens(tokens.slice(start, end)), end: possessive ? end + 1 : end, possessive }
	}
	return null
}

/** "Caroline and their family adopted": the statement is still about Caroline; the pattern starts after the group. */
function skipGroupTail(tokens: Token[], end: number, role: Token['role']): number {
	let index = end
	while (tokens[index]?.role === role) index++
	return index
}

const OWNING_VERBS = new Set(['have', 'adopt', 'get', 'rescue', 'welcome', 'bring'])

/**
 * Relations stated with the subject's possessive ("Caroline's wife Sarah ...", "Caroline's favourite food is sushi",
 * "Caroline's name is Alex") or with a verb of having ("Caroline has a dog named Max", "adopted a puppy").
 */
function relationMatch(tokens: Token[], subject: Subject): Match | null {
	if (subject.possessive) return possessedMatch(tokens, subject.end, subject.end - 1)
	let verbAt = subject.end
	while (
		tokens[verbAt] &&
		(tokens[verbAt]!.pos === 'ADV' || tokens[verbAt]!.pos === 'AUX') &&
		!OWNING_VERBS.has(tokens[verbAt]!.lemma)
	)
		verbAt++
	if (!tokens[verbAt] || !OWNING_VERBS.has(tokens[verbAt]!.lemma)) return null
	let nounAt = verbAt + 1
	while (tokens[nounAt] && ['DET', 'NUM', 'ADJ'].includes(tokens[nounAt]!.pos)) nounAt++
	if (tokens[nounAt]?.normal === 'their') nounAt++
	while (tokens[nounAt]?.pos === 'ADJ') nounAt++
	return relationAt(tokens, nounAt, verbAt)
}

function possessedMatch(tokens: Token[], from: number, at: number): Match | null {
	let nounAt = from
	while (tokens[nounAt]?.pos === 'ADJ' && !FAVOURITE_WORDS.has(tokens[nounAt]!.normal)) nounAt++
	const noun = tokens[nounAt]
	if (!noun) return null
	if (FAVOURITE_WORDS.has(noun.normal)) {
		const thingEnd = nounAt + 1 + countWhile(tokens, nounAt + 1, (t) => t.pos === 'NOUN')
		const thing = renderTokens(tokens.slice(nounAt + 1, thingEnd)).toLowerCase()
		if (!thing || tokens[thingEnd]?.lemma !== 'be') return null
		const value = valueAfter(tokens, thingEnd + 1)
		return value ? { attribute: `favourite ${thing}`, value, at } : null
	}
	if (noun.normal === 'name' && tokens[nounAt + 1]?.lemma === 'be') {
		const value = valueAfter(tokens, nounAt + 2, true)
		return value ? { attribute: 'name', value, at } : null
	}
	return relationAt(tokens, nounAt, at)
}

function relationAt(tokens: Token[], nounAt: number, at: number): Match | null {
	const noun = tokens[nounAt]
	const relation = noun && (RELATION_NOUNS[noun.lemma] ?? RELATION_NOUNS[noun.normal])
	if (!noun || !relation) return null
	const name = relationName(tokens, nounAt + 1)
	const item = name ?? RELATION_SYNONYMS[noun.lemma] ?? noun.lemma
	const attribute = relation.multiValued ? `${relation.attribute}:${item.toLowerCase()}` : relation.attribute
	return { attribute, value: name ?? noun.lemma, at }
}

/** "wife Sarah", "a dog named Max", "a puppy called Oscar". */
function relationName(tokens: Token[], from: number): string | null {
	let index = from
	if (tokens[index]?.normal === 'named' || tokens[index]?.normal === 'called') index++
	const end = index + countWhile(tokens, index, (token) => token.pos === 'PROPN' && !token.role)
	return end > index ? renderTokens(tokens.slice(index, end)) : null
}

function verbMatch(tokens: Token[], subject: Subject): Match | null {
	let best: (Match & { length: number }) | null = null
	for (const rule of VERB_RULES) {
		for (const trigger of rule.triggers) {
			const at = findSequence(tokens, trigger, subject.end)
			if (at === null || (best && (at.start > best.at || (at.start === best.at && trigger.length <= best.length))))
				continue
			const value = valueAfter(tokens, at.end, rule.nameOnly)
			if (!value) continue
			const attribute = rule.multiValued ? `${rule.attribute}:${itemKey(tokens, at.end, value)}` : rule.attribute
			best = { attribute, value, at: at.start, length: trigger.length }
		}
	}
	if (best?.attribute.startsWith('pet:') && !isPetValue(best.value)) return null
	return best && { attribute: best.attribute, value: best.value, at: best.at }
}

/** The item of a multi-valued attribute: the lemmas of the value's content words ("continue their edu" -> "continue edu"). */
function itemKey(tokens: Token[], from: number, value: string): string {
	const words = value.split(' ').length
	const content = tokens
		.slice(from, from + words + 2)
		.filter((token) => ['NOUN', 'PROPN', 'VERB', 'ADJ', 'NUM'].includes(token.pos) && value.includes(token.value))
		.map((token) => (token.pos === 'PROPN' ? token.normal : token.lemma))
	return content.length > 0 ? content.join(' ') : value.toLowerCase()
}

function isPetValue(value: string): boolean {
	const head = value.split(' ').at(-1)!.toLowerCase()
	return RELATION_NOUNS[head]?.attribute === 'pet' || RELATION_NOUNS[head.replace(/s$/, '')]?.attribute === 'pet'
}

/** "<subject> is a nurse" (job), "<subject> is 32 years old" (age), "<subject> is married" (relationship status). */
function copulaMatch(tokens: Token[], subject: Subject): Match | null {
	if (subject.possessive) return null
	let index = subject.end
	while (tokens[index]?.pos === 'ADV') index++
	const verb = tokens[index]
	if (!verb || verb.lemma !== 'be') return null
	index++
	while (tokens[index]?.pos === 'ADV') index++
	const next = tokens[index]
	if (!next) return null
	if (next.pos === 'NUM' && tokens[index + 1]?.lemma === 'year' && tokens[index + 2]?.normal === 'old') {
		return { attribute: 'age', value: next.value, at: index }
	}
	if (RELATIONSHIP_STATUSES.has(next.normal)) return { attribute: 'relationship status', value: next.normal, at: index }
	if (next.normal === 'a' || next.normal === 'an') {
		let nounAt = index + 1
		while (tokens[nounAt]?.pos === 'ADJ' || (tokens[nounAt]?.pos === 'NOUN' && tokens[nounAt + 1]?.pos === 'NOUN'))
			nounAt++
		const noun = tokens[nounAt]
		if (noun && OCCUPATIONS.has(noun.lemma) && !isFollowedByOf(tokens, nounAt)) {
			return { attribute: 'job', value: renderTokens(tokens.slice(index + 1, nounAt + 1)), at: index }
		}
	}
	return null
}

function isFollowedByOf(tokens: Token[], index: number): boolean {
	return tokens[index + 1]?.normal === 'of'
}

/** The words after a pattern that name the value: a noun phrase or name, up to a clause break, date or conjunction. */
function valueAfter(tokens: Token[], from: number, nameOnly = false): string | null {
	let start = from
	while (
		tokens[start] &&
		(tokens[start]!.pos === 'DET' || tokens[start]!.normal === 'their' || tokens[start]!.normal === "'s")
	)
		start++
	let end = start
	while (end < tokens.length && end - start < MAX_VALUE_WORDS) {
		const token = tokens[end]!
		if (!isWord(token) || token.role === 'date' || token.entity === 'DATE' || token.entity === 'DURATION') break
		if (VALUE_STOPS.has(token.normal) || token.pos === 'CCONJ' || token.pos === 'SCONJ' || token.pos === 'AUX') break
		if (token.pos === 'ADP' && !(token.normal === 'of' && end > start)) break
		if (token.pos === 'PRON' && end === start) return null
		if (nameOnly && token.pos !== 'PROPN') break
		end++
	}
	if (end === start) return null
	const words = tokens.slice(start, end)
	if (words.every((token) => token.pos === 'ADV' || token.pos === 'ADJ')) return null
	return renderTokens(words)
}

function findSequence(tokens: Token[], words: string[], from: number): { start: number; end: number } | null {
	for (let start = from; start < tokens.length; start++) {
		const first = tokens[start]!
		// "looks like", "as of": the trigger word used as a preposition is not the verb.
		if (first.pos === 'ADP' || first.pos === 'SCONJ' || !matchesLemma(first, words[0]!)) continue
		let index = start + 1
		let matched = 1
		while (matched < words.length && index < tokens.length) {
			const token = tokens[index]!
			if (token.normal === words[matched] || token.lemma === words[matched]) {
				matched++
				index++
			} else if ((token.pos === 'ADV' || token.pos === 'PART') && index - start <= words.length + 1) index++
			else break
		}
		if (matched === words.length) return { start, end: index }
	}
	return null
}

/** The token is a form of the lemma; tolerant of wink-nlp tagging a verb as a noun ("lives" read as "life"). */
function matchesLemma(token: Token, lemma: string): boolean {
	if (token.lemma === lemma || token.normal === lemma) return true
	const word = token.normal
	const stem = lemma.endsWith('e') ? lemma.slice(0, -1) : lemma
	return (
		word === `${lemma}s` ||
		word === `${lemma}es` ||
		word === `${lemma}d` ||
		word === `${lemma}ed` ||
		word === `${stem}ing`
	)
}

function isNegated(tokens: Token[], from: number, to: number): boolean {
	for (let index = from; index <= to && index < tokens.length; index++) {
		if (NEGATIONS.has(tokens[index]!.normal)) return true
	}
	return false
}

function countWhile(tokens: Token[], from: number, test: (token: Token) => boolean): number {
	let count = 0
	while (from + count < tokens.length && test(tokens[from + count]!)) count++
	return count
}
