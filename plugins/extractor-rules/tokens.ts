import type { PartOfSpeech } from 'wink-nlp'

/** What wrote a token that was not in the source text, so later steps know what it stands for. */
export type TokenRole = 'speaker' | 'addressee' | 'group' | 'date'

/** One word or mark of a sentence, as wink-nlp analysed it (or as a rewrite step made it). */
export interface Token {
	/** The text as written. */
	value: string
	/** Lower case, apostrophes straightened. */
	normal: string
	lemma: string
	pos: PartOfSpeech
	/** Whitespace before the token: '' or ' '. */
	space: string
	/** Named-entity type from wink-nlp (DATE, TIME, DURATION, CARDINAL, ...), when the token is part of one. */
	entity?: string
	role?: TokenRole
}

export function makeToken(value: string, pos: PartOfSpeech, lemma = value.toLowerCase(), space = ' '): Token {
	return { value, normal: value.toLowerCase(), lemma, pos, space }
}

/** Tokens for a phrase such as "the week before 2023-05-08"; words are split on spaces, all with one role. */
export function phraseTokens(phrase: string, pos: PartOfSpeech, role?: TokenRole): Token[] {
	return phrase.split(' ').map((word) => ({ ...makeToken(word, pos), ...(role ? { role } : {}) }))
}

/** The tokens as text, with their own spacing; the first token's leading space is dropped. */
export function renderTokens(tokens: Token[]): string {
	let text = ''
	for (const [index, token] of tokens.entries()) text += (index === 0 ? '' : token.space) + token.value
	return text
}

export function isWord(token: Token): boolean {
	return token.pos !== 'PUNCT' && token.pos !== 'SYM' && token.pos !== 'SPACE'
}

/** Clause boundaries inside a sentence: commas, semicolons, dashes, colons. */
export function isClauseBreak(token: Token | undefined): boolean {
	return token !== undefined && token.pos === 'PUNCT' && /^[,;:\u2013\u2014-]+$/.test(token.value)
}

export function isSentenceEnd(token: Token | undefined): boolean {
	return token !== undefined && token.pos === 'PUNCT' && /^[.!?…]+$/.test(token.value)
}
