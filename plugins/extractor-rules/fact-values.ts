/** Finding attribute patterns in a statement's tokens, and reading the value that follows them. */

import { ASPECT_VERBS, LIGHT_VERBS } from './lexicon.ts'
import { isWord, renderTokens, type Token } from './tokens.ts'

/** "loving home", "looks like": a trigger word used as an adjective or preposition is not the verb. */
const TRIGGER_TAGS = new Set(['VERB', 'AUX', 'NOUN', 'PROPN', 'PART'])
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
const MAX_PHRASE_WORDS = 10
/** Content words of a value that name the item of a multi-valued attribute. */
const MAX_KEY_WORDS = 3

/** The item of a multi-valued attribute: the lemmas of the value's content words ("continue their edu" -> "continue edu"). */
export function itemKey(tokens: Token[], from: number, value: string): string {
	const words = value.split(' ').length
	const content = tokens
		.slice(from, from + words + 2)
		.filter((token) => ['NOUN', 'PROPN', 'VERB', 'ADJ', 'NUM'].includes(token.pos) && value.includes(token.value))
		.map((token) => (token.pos === 'PROPN' ? token.normal : token.lemma))
	return content.length > 0 ? content.slice(0, MAX_KEY_WORDS).join(' ') : value.toLowerCase()
}

/** "keep it up", "do it": a multi-valued item needs a word that names something. */
export function hasContentWord(tokens: Token[], from: number, value: string): boolean {
	const words = itemKey(tokens, from, value).split(' ')
	return words.some((word) => !LIGHT_VERBS.has(word) && !ASPECT_VERBS.has(word))
}

/** The words after a pattern that name the value: a noun phrase or name, up to a clause break, date or conjunction. */
export function valueAfter(tokens: Token[], from: number, nameOnly = false, phrase = false): string | null {
	let start = from
	while (
		tokens[start] &&
		(tokens[start]!.pos === 'DET' || tokens[start]!.normal === 'their' || tokens[start]!.normal === "'s")
	)
		start++
	let end = start
	while (end < tokens.length && end - start < (phrase ? MAX_PHRASE_WORDS : MAX_VALUE_WORDS)) {
		const token = tokens[end]!
		if (!isWord(token) || token.role === 'date' || token.entity === 'DATE' || token.entity === 'DURATION') break
		if (VALUE_STOPS.has(token.normal) || token.pos === 'CCONJ' || token.pos === 'SCONJ' || token.pos === 'AUX') break
		if (token.pos === 'ADP' && !phrase && !(token.normal === 'of' && end > start)) break
		if (token.pos === 'PRON' && end === start) return null
		if (nameOnly && token.pos !== 'PROPN') break
		end++
	}
	// "try yoga for a (while)": a value does not end on an article or preposition.
	while (end > start && ['DET', 'ADP', 'PART', 'CCONJ'].includes(tokens[end - 1]!.pos)) end--
	if (end === start) return null
	const words = tokens.slice(start, end)
	if (words.every((token) => token.pos === 'ADV' || token.pos === 'ADJ')) return null
	return renderTokens(words)
}

/**
 * Where the lemma sequence of a pattern occurs from `from` on: the first word as any form of its lemma, the others as
 * written, with adverbs and particles allowed between them ("moved back to"). `end` is the index after the pattern.
 */
export function findSequence(tokens: Token[], words: string[], from: number): { start: number; end: number } | null {
	for (let start = from; start < tokens.length; start++) {
		const first = tokens[start]!
		if (!TRIGGER_TAGS.has(first.pos) || !matchesLemma(first, words[0]!)) continue
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

const inflections = new Map<string, Set<string>>()

/** The lemma and its regular inflections: live, lives, lived, living (computed once per lemma). */
function formsOf(lemma: string): Set<string> {
	let forms = inflections.get(lemma)
	if (!forms) {
		const stem = lemma.endsWith('e') ? lemma.slice(0, -1) : lemma
		forms = new Set([lemma, `${lemma}s`, `${lemma}es`, `${lemma}d`, `${lemma}ed`, `${stem}ing`])
		inflections.set(lemma, forms)
	}
	return forms
}

/** Which of the lemmas occur, in any form, among the tokens from `from` on. */
export function lemmasAmong(tokens: Token[], from: number, lemmas: Set<string>): Set<string> {
	const found = new Set<string>()
	for (let index = from; index < tokens.length; index++) {
		const token = tokens[index]!
		if (lemmas.has(token.lemma)) found.add(token.lemma)
		const base = baseFormOf(token.normal)
		for (const candidate of base) if (lemmas.has(candidate)) found.add(candidate)
	}
	return found
}

/** The base forms a word may inflect from: "lives" -> live, "moved" -> move, mov, "living" -> live, liv. */
function baseFormOf(word: string): string[] {
	const bases = [word]
	for (const [suffix, replacements] of SUFFIXES) {
		if (word.endsWith(suffix))
			for (const replacement of replacements) bases.push(word.slice(0, -suffix.length) + replacement)
	}
	return bases
}

const SUFFIXES: [string, string[]][] = [
	['s', ['']],
	['es', ['']],
	['d', ['']],
	['ed', ['']],
	['ing', ['', 'e']],
]

/** The token is a form of the lemma; tolerant of wink-nlp tagging a verb as a noun ("lives" read as "life"). */
function matchesLemma(token: Token, lemma: string): boolean {
	return token.lemma === lemma || formsOf(lemma).has(token.normal)
}

export function countWhile(tokens: Token[], from: number, test: (token: Token) => boolean): number {
	let count = 0
	while (from + count < tokens.length && test(tokens[from + count]!)) count++
	return count
}
