import { parseAbsoluteDate } from './absolute-dates.ts'
import { type Direction, resolveRelativeDate, type Tense } from './relative-dates.ts'
import { phraseTokens, type Token } from './tokens.ts'

export interface DatedTokens {
	tokens: Token[]
	/** ISO dates the sentence refers to, in order of appearance. */
	eventDates: string[]
}

const DATE_ENTITIES = new Set(['DATE', 'TIME', 'DURATION'])
/** Prepositions a resolved phrase replaces with its own ("on Friday" -> "on 2023-05-05"). */
const REPLACED_PREPOSITIONS = new Set(['on', 'in', 'at', 'during', 'over'])
/** Prepositions that keep their place before a resolved phrase ("since the week before 2023-05-08"). */
const KEPT_PREPOSITIONS = new Set([
	'since',
	'until',
	'till',
	'by',
	'before',
	'after',
	'from',
	'for',
	'through',
	'to',
	'of',
	'around',
])
/** Words before a date that make the date part of a longer expression the phrase would misread. */
const FUTURE_WORDS = new Set(['will', 'shall', 'gonna', 'plan', 'planning', 'tomorrow', 'next', 'soon', 'upcoming'])

interface Span {
	start: number
	/** Exclusive. */
	end: number
}

/**
 * Finds date expressions (wink-nlp DATE, TIME and DURATION entities), rewrites relative ones against the reference
 * date ("last week" -> "in the week before 2023-05-08", "yesterday" -> "on 2023-05-07") and lists the ISO date of
 * each expression it can read, relative or absolute. Absolute dates stay as written.
 */
export function resolveDates(tokens: Token[], reference: string | null): DatedTokens {
	const eventDates: string[] = []
	const out: Token[] = []
	const tense = tenseOf(tokens)
	let copied = 0
	for (const span of dateSpans(tokens)) {
		const words = tokens.slice(span.start, span.end).map((token) => token.normal.replace(/,$/, ''))
		const before = tokens[span.start - 1]
		if (tokens[span.end]?.normal === 'of') continue
		const direction: Direction = words.includes('ago')
			? 'behind'
			: before?.normal === 'in' || words.at(-1) === 'now'
				? 'ahead'
				: 'bare'
		const relativeWords = words.filter((word, index) => !(index === 0 && word === 'the') && word !== ',')
		const resolved = reference ? resolveRelativeDate(relativeWords, reference, direction, tense) : null
		if (!resolved) {
			const absolute = parseAbsoluteDate(relativeWords, reference)
			if (absolute && tokens[span.start]?.entity === 'DATE') eventDates.push(absolute)
			continue
		}
		if (resolved.date) eventDates.push(resolved.date)
		const absorbsBefore =
			before !== undefined &&
			(direction === 'ahead'
				? before.normal === 'in'
				: resolved.preposition !== null && REPLACED_PREPOSITIONS.has(before.normal))
		const keepsOwnPreposition = before !== undefined && KEPT_PREPOSITIONS.has(before.normal) && !absorbsBefore
		const start = absorbsBefore ? span.start - 1 : span.start
		out.push(...tokens.slice(copied, start))
		// A date that is the subject ("Last night was fun") takes no preposition.
		const isSubject = start === 0 && (tokens[span.end]?.pos === 'AUX' || tokens[span.end]?.pos === 'VERB')
		const phrase =
			resolved.preposition && !keepsOwnPreposition && !isSubject
				? `${resolved.preposition} ${resolved.phrase}`
				: resolved.phrase
		const replacement = phraseTokens(phrase, 'NOUN', 'date')
		replacement[0]!.space = tokens[start]!.space
		out.push(...replacement)
		copied = span.end
	}
	out.push(...tokens.slice(copied))
	return { tokens: out, eventDates }
}

function dateSpans(tokens: Token[]): Span[] {
	const spans: Span[] = []
	let i = 0
	while (i < tokens.length) {
		if (!DATE_ENTITIES.has(tokens[i]!.entity ?? '')) {
			i++
			continue
		}
		let start = i
		let end = i
		while (end < tokens.length && DATE_ENTITIES.has(tokens[end]!.entity ?? '')) end++
		// wink-nlp counts a leading "since" or "for" into the entity; it stays outside the phrase.
		while (start < end - 1 && (tokens[start]!.pos === 'ADP' || tokens[start]!.pos === 'SCONJ')) start++
		// "a few weeks ago", "the past week": the article is outside wink-nlp's entity.
		const previous = tokens[start - 1]?.normal
		if (previous === 'a' || previous === 'an' || previous === 'the') start--
		if (tokens[end]?.normal === 'ago') end++
		else if (tokens[end]?.normal === 'from' && tokens[end + 1]?.normal === 'now') end += 2
		// "8 May, 2023": wink-nlp tags the year apart.
		const yearAt = tokens[end]?.value === ',' ? end + 1 : end
		if (/^(1[6-9]|2\d)\d\d$/.test(tokens[yearAt]?.value ?? '') && tokens[end - 1]?.entity === 'DATE') end = yearAt + 1
		spans.push({ start, end })
		i = end
	}
	return spans
}

/**
 * The direction a bare date ("on Friday") points: future when the sentence says so (will, going to, planning ...)
 * or speaks in the present ("presents", "is presenting", "has to present", "is on Friday"), past when a verb is in
 * the past ("presented", "was", "has presented"), and past when it has no verb: chats mostly report.
 */
export function tenseOf(tokens: Token[]): Tense {
	let present = false
	let past = false
	for (const [index, token] of tokens.entries()) {
		if (FUTURE_WORDS.has(token.normal) && (!VERB_ONLY_FUTURE_WORDS.has(token.normal) || token.pos === 'VERB')) {
			return 'future'
		}
		if (token.normal === "'ll") return 'future'
		if (token.normal === 'going' && tokens[index + 1]?.normal === 'to' && tokens[index + 2]?.pos === 'VERB')
			return 'future'
		const tense = verbTense(token, tokens[index - 1])
		if (tense === 'past') past = true
		else if (tense === 'present') present = true
	}
	return present && !past ? 'future' : 'past'
}

/** Words of FUTURE_WORDS that say so only as a verb ("we plan to", not "the plan"). */
const VERB_ONLY_FUTURE_WORDS = new Set(['plan', 'planning'])
const PAST_FORMS = new Set(['was', 'were', 'did', 'had'])
const PRESENT_FORMS = new Set(['am', 'is', 'are', 'do', 'does', 'has', 'have'])
const PRESENT_BE = /^(?:am|is|are|.+'m|.+'re)$/

/** A verb's tense by its form (wink-nlp tags no tense): present, past, or null for an -ing form or a non-verb. */
function verbTense(token: Token, previous: Token | undefined): Tense | 'present' | null {
	const word = token.normal
	// wink-nlp reads "I'm" as one token.
	if (/.'(?:m|re)$/.test(word)) return 'present'
	if (token.pos !== 'VERB' && token.pos !== 'AUX') return null
	if (PAST_FORMS.has(word)) return 'past'
	if (PRESENT_FORMS.has(word)) return 'present'
	if (word.endsWith('ing')) return null
	const lemma = token.lemma
	if (word === lemma || word === `${lemma}s` || word === `${lemma}es` || word === `${lemma.slice(0, -1)}ies`) {
		return 'present'
	}
	// A participle after a present "be" is a present passive: "the demo is scheduled for Friday".
	if (previous && PRESENT_BE.test(previous.normal)) return 'present'
	return 'past'
}
