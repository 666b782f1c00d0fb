import model from 'wink-eng-lite-web-model'
import winkNLP, {
	type ItemEntity,
	type ItemSentence,
	type ItsFunction,
	type PartOfSpeech,
	type WinkMethods,
} from 'wink-nlp'
import { protectDots } from './protected-dots.ts'
import type { Token } from './tokens.ts'

/** A sentence as wink-nlp split and tagged it. */
export interface AnalysedSentence {
	/** The sentence as written (whitespace collapsed). */
	text: string
	tokens: Token[]
}

export type Analyser = (text: string) => AnalysedSentence[]

/**
 * Date phrases wink-nlp's named-entity model does not tag; matched as literal word sequences (wink custom entities)
 * and then read by the same date grammar as its own DATE, TIME and DURATION entities.
 */
const EXTRA_DATE_PATTERNS = [
	{
		name: 'DATE',
		patterns: [
			'[last|next|this|past|coming|previous] weekend',
			'[next|this|coming|past|previous] [spring|summer|fall|autumn|winter]',
			'the other [day|night|week]',
		],
	},
]

/**
 * Longest run of non-space characters given to wink-nlp as one token. Its English model tests every new word with
 * `/[a-z].*\.$/i` (the abbreviation feature), which takes time with the square of the word's length: a 1 MB word
 * held the process for half an hour. Longer runs are cut into words of this length (no real word is this long).
 */
export const MAX_TOKEN_CHARS = 64
/** Text read by wink-nlp in one call at most: longer text is read in pieces cut at a line or sentence end. */
export const MAX_CALL_CHARS = 20_000
/** Tokens of one sentence at most: a run-on text without full stops is cut into sentences of this many tokens. */
export const MAX_SENTENCE_TOKENS = 120

/** Kinds of token wink-nlp reports that carry no words for a statement. */
const SKIPPED_TOKEN_TYPES = new Set(['emoji', 'emoticon'])

/**
 * Loads wink-nlp with the English lite model (an npm package, read from disk: no network) and returns a function
 * that splits text into sentences of tagged tokens: part of speech, lemma, named entities.
 */
export function loadAnalyser(): Analyser {
	// The model's tables are large and read-only: one instance per process serves every plugin instance.
	if (!shared) {
		const nlp = winkNLP(model)
		nlp.learnCustomEntities(EXTRA_DATE_PATTERNS, { matchValue: false, usePOS: false, useEntity: false })
		shared = (text) => analyse(nlp, text)
	}
	return shared
}

let shared: Analyser | null = null

function analyse(nlp: WinkMethods, text: string): AnalysedSentence[] {
	const sentences: AnalysedSentence[] = []
	for (const piece of pieces(capTokens(text), MAX_CALL_CHARS)) {
		for (const sentence of analysePiece(nlp, piece)) sentences.push(sentence)
	}
	return sentences
}

/** The text with every run of non-space characters longer than MAX_TOKEN_CHARS cut into runs of that length. */
export function capTokens(text: string): string {
	return text.replace(new RegExp(`\\S{${MAX_TOKEN_CHARS + 1},}`, 'g'), (run) =>
		(run.match(new RegExp(`.{1,${MAX_TOKEN_CHARS}}`, 'gsu')) ?? [run]).join(' '),
	)
}

/** The text in pieces of at most `size` characters, each cut after the last line break, sentence end or space. */
export function pieces(text: string, size: number): string[] {
	const out: string[] = []
	let start = 0
	while (text.length - start > size) {
		const window = text.slice(start, start + size)
		const cut = Math.max(window.lastIndexOf('\n'), lastSentenceEnd(window))
		const space = window.lastIndexOf(' ')
		const end = cut > size / 2 ? cut + 1 : space > 0 ? space + 1 : size
		out.push(text.slice(start, start + end))
		start += end
	}
	out.push(text.slice(start))
	return out
}

/** Index of the last whitespace that follows a full stop, question or exclamation mark; -1 when none does. */
function lastSentenceEnd(text: string): number {
	for (let i = text.length - 1; i > 0; i--) {
		if (/\s/.test(text[i]!) && '.!?'.includes(text[i - 1]!)) return i
	}
	return -1
}

function analysePiece(nlp: WinkMethods, text: string): AnalysedSentence[] {
	if (text.trim() === '') return []
	const { its } = nlp
	const { text: read, restore } = protectDots(straightenQuotes(text))
	const doc = nlp.readDoc(read)
	const values = (doc.tokens().out(its.value) as string[]).map(restore)
	const normals = (doc.tokens().out(its.normal) as string[]).map(restore)
	// wink-nlp gives some words no lemma ("cannot"): their normal form stands in, as for a word it does not know.
	const lemmas = (doc.tokens().out(its.lemma as ItsFunction<string>) as (string | undefined)[]).map((lemma, i) =>
		lemma === undefined ? normals[i]! : restore(lemma),
	)
	const tags = doc.tokens().out(its.pos) as PartOfSpeech[]
	const spaces = doc.tokens().out(its.precedingSpaces) as string[]
	const types = doc.tokens().out(its.type) as string[]
	const entityOf = new Array<string | undefined>(values.length)
	const markEntity = (entity: ItemEntity, type: string) => {
		const tokens = entity.tokens()
		const first = tokens.itemAt(0).index()
		for (let i = first; i < first + tokens.length(); i++) entityOf[i] ??= type
	}
	doc.customEntities().each((entity: ItemEntity) => markEntity(entity, 'DATE'))
	doc.entities().each((entity: ItemEntity) => markEntity(entity, (entity.out(its.type) as string) || 'ENTITY'))

	const sentences: AnalysedSentence[] = []
	doc.sentences().each((sentence: ItemSentence) => {
		const range = sentence.tokens()
		if (range.length() === 0) return
		const first = range.itemAt(0).index()
		let tokens: Token[] = []
		let text = ''
		const flush = () => {
			if (tokens.length > 0) sentences.push({ text: text.replace(/\s+/g, ' ').trim(), tokens })
			tokens = []
			text = ''
		}
		for (let i = first; i < first + range.length(); i++) {
			text += spaces[i]! + values[i]!
			if (SKIPPED_TOKEN_TYPES.has(types[i]!)) {
				// Chats end sentences with an emoji as often as with a full stop: "Inspiring 💪 I emailed them".
				if (/^\p{Lu}/u.test(values[i + 1] ?? '') && i + 1 < first + range.length()) flush()
				continue
			}
			const token: Token = {
				value: values[i]!,
				normal: normals[i]!,
				lemma: lemmas[i]!,
				pos: tags[i]!,
				space: spaces[i] === '' ? '' : ' ',
			}
			if (entityOf[i]) token.entity = entityOf[i]
			tokens.push(token)
			if (tokens.length >= MAX_SENTENCE_TOKENS) flush()
		}
		flush()
	})
	return sentences
}

function straightenQuotes(text: string): string {
	return text.replace(/[\u2018\u2019\u02bc]/g, "'").replace(/[\u201c\u201d]/g, '"')
}
