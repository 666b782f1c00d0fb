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

/** Future when the sentence says so (will, going to, plan, next ...), otherwise past: chats mostly report. */
export function tenseOf(tokens: Token[]): Tense {
	for (const [index, token] of tokens.entries()) {
		if (FUTURE_WORDS.has(token.normal) || token.normal === "'ll") return 'future'
		if (token.normal === 'going' && tokens[index + 1]?.normal === 'to' && tokens[index + 2]?.pos === 'VERB')
			return 'future'
	}
	return 'past'
}
