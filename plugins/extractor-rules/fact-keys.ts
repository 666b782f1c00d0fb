import {
	FAVOURITE_WORDS,
	GOAL_NOUNS,
	OCCUPATIONS,
	RELATION_NOUNS,
	RELATION_SYNONYMS,
	RELATIONSHIP_STATUSES,
	VERB_RULES,
} from './attribute-rules.ts'
import { findSubject, type Subject } from './fact-subject.ts'
import { countWhile, findSequence, hasContentWord, itemKey, lemmasAmong, valueAfter } from './fact-values.ts'
import { renderTokens, type Token } from './tokens.ts'

const NEGATIONS = new Set(['not', "n't", 'never', 'no'])
/** Verbs that end what the pattern states: "lost their job as a banker" says the job is gone. */
const ENDING_VERBS = new Set(['lose', 'quit', 'leave', 'resign', 'fire', 'retire', 'stop', 'sell', 'divorce'])

/** Who a statement is about and which attribute of theirs it states. */
export interface FactKey {
	subject: string | null
	attribute: string | null
	value: string | null
}

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
	if (GOAL_NOUNS.has(noun.lemma) && tokens[nounAt + 1]?.lemma === 'be' && tokens[nounAt + 2]?.normal === 'to') {
		const value = valueAfter(tokens, nounAt + 3, false, true)
		return value ? { attribute: `goal:${itemKey(tokens, nounAt + 3, value)}`, value, at } : null
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
	if (tokens[index]?.lemma === 'be') index++
	if (tokens[index]?.normal === 'named' || tokens[index]?.normal === 'called') index++
	const end = index + countWhile(tokens, index, (token) => token.pos === 'PROPN' && !token.role)
	return end > index ? renderTokens(tokens.slice(index, end)) : null
}

/** The first words of all verb patterns, so a sentence is only searched for patterns whose first word it has. */
const TRIGGER_HEADS = new Set(VERB_RULES.flatMap((rule) => rule.triggers.map((trigger) => trigger[0]!)))

function verbMatch(tokens: Token[], subject: Subject): Match | null {
	const heads = lemmasAmong(tokens, subject.end, TRIGGER_HEADS)
	if (heads.size === 0) return null
	let best: (Match & { length: number }) | null = null
	for (const rule of VERB_RULES) {
		for (const trigger of rule.triggers) {
			if (!heads.has(trigger[0]!)) continue
			const at = findSequence(tokens, trigger, subject.end)
			if (at === null || (best && (at.start > best.at || (at.start === best.at && trigger.length <= best.length))))
				continue
			const value = valueAfter(tokens, at.end, rule.nameOnly, rule.phrase)
			if (!value || (rule.multiValued && !hasContentWord(tokens, at.end, value))) continue
			const attribute = rule.multiValued ? `${rule.attribute}:${itemKey(tokens, at.end, value)}` : rule.attribute
			best = { attribute, value, at: at.start, length: trigger.length }
		}
	}
	if (best?.attribute.startsWith('pet:') && !isPetValue(best.value)) return null
	return best && { attribute: best.attribute, value: best.value, at: best.at }
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
	if (verb?.lemma !== 'be') return null
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

/** A negation or an ending verb between the subject and the pattern: the statement does not set the attribute. */
function isNegated(tokens: Token[], from: number, to: number): boolean {
	for (let index = from; index <= to && index < tokens.length; index++) {
		if (NEGATIONS.has(tokens[index]!.normal) || ENDING_VERBS.has(tokens[index]!.lemma)) return true
	}
	return false
}
