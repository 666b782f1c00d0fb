import type { PartOfSpeech } from 'wink-nlp'
import { isWord, type Token } from './tokens.ts'

/** Clitics written out, so a rewritten subject reads naturally ("I've" -> "Caroline has", not "Caroline's"). */
const CLITICS: Record<string, { value: string; lemma: string }> = {
	"'m": { value: 'am', lemma: 'be' },
	"'re": { value: 'are', lemma: 'be' },
	"'ve": { value: 'have', lemma: 'have' },
	"'ll": { value: 'will', lemma: 'will' },
}

/** Casual spellings of two words, written out so later steps see the verb. */
const FUSED: Record<string, [string, PartOfSpeech, string][]> = {
	"i'm": [
		['I', 'PRON', 'i'],
		['am', 'AUX', 'be'],
	],
	gonna: [
		['going', 'VERB', 'go'],
		['to', 'PART', 'to'],
	],
	wanna: [
		['want', 'VERB', 'want'],
		['to', 'PART', 'to'],
	],
	gotta: [
		['have', 'VERB', 'have'],
		['to', 'PART', 'to'],
	],
}

const SPELLED_OUT: Record<string, string> = { cuz: 'because', "'cause": 'because', coz: 'because' }

/**
 * Writes out contractions wink-nlp leaves attached ("'ve", "'d", "I'm", "gonna"). "'d" becomes "had" before a past
 * participle ("I'd gone") and "would" otherwise ("I'd love"). Negations ("n't") and "'s" stay as written.
 */
export function expandContractions(tokens: Token[]): Token[] {
	const out: Token[] = []
	for (const [index, token] of tokens.entries()) {
		// "'cause" comes as an apostrophe and "cause".
		if (token.value === "'" && tokens[index + 1]?.normal === 'cause' && tokens[index + 1]?.space === '') continue
		if (token.normal === 'cause' && tokens[index - 1]?.value === "'" && token.space === '') {
			out.push({
				...token,
				value: 'because',
				normal: 'because',
				lemma: 'because',
				pos: 'SCONJ',
				space: tokens[index - 1]!.space,
			})
			continue
		}
		const fused = FUSED[token.normal]
		if (fused) {
			for (const [position, [word, pos, lemma]] of fused.entries()) {
				const value =
					word !== 'I' && position === 0 && token.value[0] !== token.value[0]?.toUpperCase() ? word.toLowerCase() : word
				out.push({ value, normal: word.toLowerCase(), lemma, pos, space: position === 0 ? token.space : ' ' })
			}
			continue
		}
		const spelled = SPELLED_OUT[token.normal] ?? SPELLED_OUT[token.value.toLowerCase()]
		if (spelled) {
			out.push({ ...token, value: spelled, normal: spelled, lemma: spelled, pos: 'SCONJ' })
			continue
		}
		const written = token.value.toLowerCase()
		const clitic = CLITICS[written]
		if (clitic && index > 0) {
			out.push({ ...token, value: clitic.value, normal: clitic.value, lemma: clitic.lemma, space: ' ' })
			continue
		}
		if (written === "'d" && index > 0) {
			const word = isPastParticiple(nextWord(tokens, index + 1)) ? 'had' : 'would'
			out.push({ ...token, value: word, normal: word, lemma: word === 'had' ? 'have' : 'would', space: ' ' })
			continue
		}
		out.push(token)
	}
	return out
}

function nextWord(tokens: Token[], from: number): Token | undefined {
	for (let i = from; i < tokens.length; i++) {
		const token = tokens[i]!
		if (token.pos !== 'ADV' && isWord(token)) return token
	}
	return undefined
}

/** A verb form that is neither the base form, nor -ing, nor -s: "gone", "been", "adopted". */
export function isPastParticiple(token: Token | undefined): boolean {
	if (!token || (token.pos !== 'VERB' && token.pos !== 'AUX')) return false
	if (token.normal === 'been') return true
	return token.normal !== token.lemma && !token.normal.endsWith('ing') && !/s$/.test(token.normal)
}
