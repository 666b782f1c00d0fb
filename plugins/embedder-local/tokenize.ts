/**
 * Word tokens for the local embedder, matched to the package's vocabulary: lower-case, accents stripped, no
 * one-letter words and no pure numbers (the package dropped both, so digits only count inside words like "mp3").
 */

const WORD = /[\p{L}\p{N}]+(?:['.-][\p{L}\p{N}]+)*/gu

/** Contraction endings and the word each one stands for; `null` drops it ('s is a possessive or an unstressed "is"). */
const CONTRACTIONS: [suffix: string, expansion: string | null][] = [
	["n't", 'not'],
	["'re", 'are'],
	["'ve", 'have'],
	["'ll", 'will'],
	["'d", 'would'],
	["'m", 'am'],
	["'s", null],
]

const IRREGULAR: Record<string, string[]> = {
	"can't": ['can', 'not'],
	"won't": ['will', 'not'],
	"shan't": ['shall', 'not'],
	"ain't": ['is', 'not'],
}

/** Lower case, compatibility forms folded (ligatures, full-width letters), accents and curly apostrophes normalized. */
export function normalizeText(text: string): string {
	return text
		.normalize('NFKD')
		.replace(/\p{M}+/gu, '')
		.toLowerCase()
		.replace(/[\u2018\u2019\u02bc`]/g, "'")
		.replace(/[\u2010\u2011]/g, '-')
}

/**
 * Splits text into words, preferring the vocabulary's own compound forms: "e-mail" stays whole because it is known,
 * "state-of-the-art" falls back to its parts, "don't" becomes "do not", "dog's" becomes "dog". Unknown words are kept
 * (the caller skips them) so the result does not depend on anything but the text and `isKnown`.
 */
export function tokenize(text: string, isKnown: (word: string) => boolean): string[] {
	const words: string[] = []
	for (const match of normalizeText(text).matchAll(WORD)) words.push(...expand(match[0], isKnown))
	return words
}

function expand(token: string, isKnown: (word: string) => boolean): string[] {
	if (isKnown(token)) return [token]
	if (token.includes("'")) return expandApostrophe(token, isKnown)
	if (token.includes('-') || token.includes('.')) {
		return token
			.split(/[-.]/)
			.filter((part) => part !== '')
			.flatMap((part) => expand(part, isKnown))
	}
	return [token]
}

function expandApostrophe(token: string, isKnown: (word: string) => boolean): string[] {
	const irregular = IRREGULAR[token]
	if (irregular) return irregular
	for (const [suffix, expansion] of CONTRACTIONS) {
		if (token.length > suffix.length && token.endsWith(suffix)) {
			const stem = expand(token.slice(0, -suffix.length), isKnown)
			return expansion ? [...stem, expansion] : stem
		}
	}
	const joined = token.replaceAll("'", '')
	if (isKnown(joined)) return [joined]
	return token
		.split("'")
		.filter((part) => part !== '')
		.flatMap((part) => expand(part, isKnown))
}
