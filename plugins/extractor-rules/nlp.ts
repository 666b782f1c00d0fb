import model from 'wink-eng-lite-web-model'
import winkNLP, {
	type ItemEntity,
	type ItemSentence,
	type ItsFunction,
	type PartOfSpeech,
	type WinkMethods,
} from 'wink-nlp'
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
	if (text.trim() === '') return []
	const { its } = nlp
	const doc = nlp.readDoc(straightenQuotes(text))
	const values = doc.tokens().out(its.value) as string[]
	const normals = doc.tokens().out(its.normal) as string[]
	const lemmas = doc.tokens().out(its.lemma as ItsFunction<string>) as string[]
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
		}
		flush()
	})
	return sentences
}

function straightenQuotes(text: string): string {
	return text.replace(/[\u2018\u2019\u02bc]/g, "'").replace(/[\u201c\u201d]/g, '"')
}
