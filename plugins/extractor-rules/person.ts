import type { Token, TokenRole } from './tokens.ts'

/** Someone a statement can name: a speaker, the person a chat turn addresses, or who "I" is in a document. */
export interface Person {
	/** As written in statements: "Caroline", "the user". */
	name: string
}

/** The person's name as tokens ("the user" is two), marked with the role they stand for. */
export function nameTokens(person: Person, space: string, role: TokenRole): Token[] {
	return person.name.split(' ').map(
		(word, index): Token => ({
			value: word,
			normal: word.toLowerCase(),
			lemma: word.toLowerCase(),
			pos: word === 'the' ? 'DET' : word[0] === word[0]?.toLowerCase() ? 'NOUN' : 'PROPN',
			space: index === 0 ? space : ' ',
			role,
		}),
	)
}

/** "Caroline's". */
export function possessiveTokens(person: Person, space: string, role: TokenRole): Token[] {
	return [...nameTokens(person, space, role), { value: "'s", normal: "'s", lemma: "'s", pos: 'PART', space: '', role }]
}

const ROLE_NAMES: Record<string, string> = {
	user: 'the user',
	human: 'the user',
	assistant: 'the assistant',
	ai: 'the assistant',
	bot: 'the assistant',
	model: 'the assistant',
}

/** Roles that speak for the service rather than about the person the memories are for. */
export const ASSISTANT_ROLES = new Set(['assistant', 'ai', 'bot', 'model', 'system', 'tool'])

/**
 * The person behind a chat speaker label: a role such as `user` becomes the container's entity when one is named
 * ("The user is Alex" -> Alex), otherwise "the user"; a name is kept as written.
 */
export function speakerPerson(speaker: string, entityName: string | null): Person {
	const role = speaker.toLowerCase()
	if (role === 'user' || role === 'human') return { name: entityName ?? 'the user' }
	return { name: ROLE_NAMES[role] ?? speaker }
}
