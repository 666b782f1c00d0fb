/**
 * The attributes extractor-rules recognises, with the lemma sequences that state them. A statement matching none
 * has attribute null (core then links it to others by similarity only).
 *
 * Single-valued attributes (a person has one residence, one job at a time) use the bare key, so a new value makes a
 * new version of the memory. Multi-valued ones (pets, children, hobbies, likes, goals) carry the item in the key,
 * `pet:oscar` or `hobby:painting`, so a second pet does not replace the first; only statements about the same item
 * version each other.
 */

export interface VerbRule {
	attribute: string
	multiValued?: boolean
	/** Lemma sequences; the first word is matched with inflection ("moved", "lives"), the rest as written. */
	triggers: string[][]
	/** The value must be a name (a proper noun), as for "joined Google". */
	nameOnly?: boolean
	/** The value is a verb phrase ("get into local politics"), running over prepositions up to the clause's end. */
	phrase?: boolean
}

export const VERB_RULES: VerbRule[] = [
	{
		attribute: 'residence',
		triggers: [
			['live', 'in'],
			['move', 'to'],
			['move', 'into'],
			['relocate', 'to'],
			['reside', 'in'],
			['settle', 'in'],
			['be', 'based', 'in'],
			['move', 'in'],
		],
	},
	{
		attribute: 'hometown',
		triggers: [
			['grow', 'up', 'in'],
			['be', 'from'],
			['come', 'from'],
			['be', 'born', 'in'],
			['be', 'raised', 'in'],
		],
	},
	{
		attribute: 'job',
		triggers: [
			['work', 'as'],
			['be', 'employed', 'as'],
			['job', 'as'],
			['be', 'hired', 'as'],
			['start', 'working', 'as'],
		],
	},
	{
		attribute: 'workplace',
		triggers: [
			['work', 'at'],
			['work', 'for'],
			['job', 'at'],
			['be', 'hired', 'by'],
			['be', 'employed', 'by'],
			['be', 'employed', 'at'],
			['join'],
			['start', 'at'],
		],
		nameOnly: true,
	},
	{
		attribute: 'education',
		triggers: [
			['study'],
			['major', 'in'],
			['graduate', 'from'],
			['enrol', 'in'],
			['enroll', 'in'],
			['attend'],
			['degree', 'in'],
		],
	},
	{
		attribute: 'spouse',
		triggers: [['be', 'married', 'to'], ['marry'], ['be', 'engaged', 'to'], ['get', 'married', 'to']],
	},
	{
		attribute: 'pet',
		multiValued: true,
		triggers: [['adopt'], ['rescue']],
	},
	{
		attribute: 'hobby',
		multiValued: true,
		phrase: true,
		triggers: [
			['be', 'into'],
			['be', 'passionate', 'about'],
			['be', 'keen', 'on'],
			['be', 'a', 'fan', 'of'],
			['play'],
			['practice'],
		],
	},
	{
		attribute: 'likes',
		multiValued: true,
		triggers: [['love'], ['like'], ['enjoy'], ['prefer'], ['adore']],
	},
	{
		attribute: 'dislikes',
		multiValued: true,
		triggers: [['hate'], ['dislike'], ['detest']],
	},
	{
		attribute: 'goal',
		multiValued: true,
		phrase: true,
		triggers: [
			['want', 'to'],
			['plan', 'to'],
			['hope', 'to'],
			['dream', 'of'],
			['dream', 'about'],
			['aim', 'to'],
			['would', 'love', 'to'],
			['be', 'going', 'to'],
			['be', 'planning', 'to'],
			['be', 'saving', 'for'],
		],
	},
	{
		attribute: 'health',
		multiValued: true,
		triggers: [
			['be', 'diagnosed', 'with'],
			['suffer', 'from'],
			['be', 'allergic', 'to'],
			['recover', 'from'],
			['be', 'recovering', 'from'],
		],
	},
]

/** Relation nouns after a possessive ("Caroline's wife", "their dog"), by attribute. */
export const RELATION_NOUNS: Record<string, { attribute: string; multiValued: boolean }> = {}
const relations: [string, boolean, string[]][] = [
	['spouse', false, ['wife', 'husband', 'spouse', 'partner', 'girlfriend', 'boyfriend', 'fiance', 'fiancee', 'fiancé']],
	['child', true, ['son', 'daughter', 'kid', 'child', 'baby', 'stepson', 'stepdaughter']],
	['parent', true, ['mom', 'mum', 'mother', 'dad', 'father', 'stepmom', 'stepdad']],
	['sibling', true, ['brother', 'sister', 'sibling', 'twin']],
	['grandparent', true, ['grandma', 'grandpa', 'grandmother', 'grandfather', 'granny']],
	['friend', true, ['friend', 'bff', 'buddy', 'bestie', 'roommate']],
	[
		'pet',
		true,
		[
			'dog',
			'cat',
			'puppy',
			'kitten',
			'pet',
			'horse',
			'bird',
			'parrot',
			'hamster',
			'rabbit',
			'bunny',
			'fish',
			'turtle',
			'snake',
		],
	],
]
for (const [attribute, multiValued, nouns] of relations) {
	for (const noun of nouns) RELATION_NOUNS[noun] = { attribute, multiValued }
}

/** Spelling variants that name the same relation item. */
export const RELATION_SYNONYMS: Record<string, string> = { mum: 'mother', mom: 'mother', dad: 'father', kid: 'child' }

/** Occupations, for "X is a nurse" (job). Kept to common words; "works as" catches the rest. */
export const OCCUPATIONS = new Set(
	(
		'accountant actor actress architect artist athlete attorney baker banker barber barista carpenter cashier chef ' +
		'cleaner coach consultant cook counselor counsellor dancer dentist designer developer doctor driver economist ' +
		'editor electrician engineer farmer firefighter journalist judge lawyer lecturer librarian manager mechanic ' +
		'musician nurse painter paramedic pharmacist photographer physician physiotherapist pilot plumber poet ' +
		'officer politician professor programmer psychologist researcher salesperson scientist singer ' +
		'worker soldier student surgeon tailor teacher technician therapist translator tutor vet veterinarian ' +
		'waiter waitress writer'
	).split(' '),
)

export const RELATIONSHIP_STATUSES = new Set(['single', 'married', 'divorced', 'engaged', 'widowed', 'separated'])

/** Possessed nouns that state a goal: "<name>'s dream is to open a studio". */
export const GOAL_NOUNS = new Set(['goal', 'dream', 'plan', 'ambition', 'aim', 'hope', 'wish'])

export const FAVOURITE_WORDS = new Set(['favourite', 'favorite', 'fave', 'fav'])
