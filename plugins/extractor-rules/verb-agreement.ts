import type { Token } from './tokens.ts'

/** Verbs whose past tense is spelled like the base form: without a tense marker they are left as written. */
const SAME_IN_PAST = new Set([
	'put',
	'read',
	'cut',
	'set',
	'let',
	'hit',
	'hurt',
	'quit',
	'cost',
	'shut',
	'spread',
	'bet',
	'burst',
	'cast',
	'split',
	'upset',
])

/** The third-person singular present of a verb: be -> is, have -> has, go -> goes, try -> tries, love -> loves. */
export function thirdPersonSingular(lemma: string): string {
	if (lemma === 'be') return 'is'
	if (lemma === 'have') return 'has'
	if (/(?:s|sh|ch|x|z|o)$/.test(lemma)) return `${lemma}es`
	if (/[^aeiou]y$/.test(lemma)) return `${lemma.slice(0, -1)}ies`
	return `${lemma}s`
}

/**
 * The finite verb after a subject that changes from "I", "you" or "we" to a single third person ("Caroline"):
 * am/are -> is, were -> was, have -> has, do -> does, and present-tense verbs take -s. Past forms, modals and
 * participles do not change; null when the token is not a verb form that agrees.
 */
export function agreeWithThirdPersonSingular(token: Token, directlyAfterSubject: boolean): Token | null {
	const { normal } = token
	const form = (value: string): Token => ({ ...token, value: matchCase(token.value, value), normal: value })
	if (normal === 'am' || normal === 'are') return form('is')
	if (normal === 'were') return form('was')
	if (normal === 'have') return form('has')
	if (normal === 'do') return form('does')
	const verbLike = token.pos === 'VERB' || (directlyAfterSubject && token.pos === 'NOUN')
	if (!verbLike || normal !== token.lemma || SAME_IN_PAST.has(normal) || !/^[a-z]+$/.test(normal)) return null
	return form(thirdPersonSingular(normal))
}

function matchCase(original: string, value: string): string {
	return original[0] === original[0]?.toUpperCase() && original[0] !== original[0]?.toLowerCase()
		? value[0]!.toUpperCase() + value.slice(1)
		: value
}
