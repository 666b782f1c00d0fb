import { renderTokens, type Token } from './tokens.ts'

/** The person or named thing a statement is about, as found at its start. */
export interface Subject {
	name: string
	/** Index of the first token after the subject phrase. */
	end: number
	/** The subject is "<name>'s <relation noun> ..." */
	possessive: boolean
}

/**
 * The subject at the start of the statement: the person a rewrite named (the speaker, the addressee, or the
 * speaker's group, which counts as the speaker), or a leading run of proper nouns followed by its verb or "'s".
 */
export function findSubject(tokens: Token[]): Subject | null {
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
		const start = first.pos === 'DET' ? index + 1 : index
		let end = start
		while (
			tokens[end]?.pos === 'PROPN' ||
			(tokens[end]?.normal === 'of' && tokens[end + 1]?.pos === 'PROPN' && end > start)
		)
			end++
		if (end === start) return null
		const after = tokens[end]
		// wink-nlp sometimes reads a verb after a name as a noun ("Alex lives in Boston": "lives" as "life").
		const nextIsVerb =
			after !== undefined &&
			(after.pos === 'VERB' ||
				after.pos === 'AUX' ||
				after.pos === 'ADV' ||
				(after.pos === 'NOUN' && after.normal.endsWith('s')))
		const possessive = tokens[end]?.normal === "'s"
		if (!nextIsVerb && !possessive) return null
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
