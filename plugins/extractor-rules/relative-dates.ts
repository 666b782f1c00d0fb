import { addDays, addMonths, monthLabel, nearestWeekday, toDate, WEEKDAYS, weekdayOf, yearOf } from './calendar.ts'

/** What a relative date expression means against the reference date, as words to put in its place. */
export interface ResolvedDate {
	/** The phrase that replaces the expression, without a preposition: "the week before 2023-05-08", "2023-05-07". */
	phrase: string
	/** The preposition the phrase takes on its own ("on 2023-05-07", "in April 2023"); null when it takes none. */
	preposition: 'on' | 'in' | null
	/** The day, or the first day of the period, the expression points at; null when it is too vague. */
	date: string | null
}

export type Tense = 'past' | 'future'

/** Where the expression stands: "in 2 weeks" (ahead), "3 days ago" (behind), or bare. */
export type Direction = 'ahead' | 'behind' | 'bare'

const NUMBER_WORDS: Record<string, number> = {
	a: 1,
	an: 1,
	one: 1,
	two: 2,
	three: 3,
	four: 4,
	five: 5,
	six: 6,
	seven: 7,
	eight: 8,
	nine: 9,
	ten: 10,
	eleven: 11,
	twelve: 12,
	couple: 2,
	few: 3,
	several: 3,
}

const PAST_MARKERS = new Set(['last', 'past', 'previous'])
const FUTURE_MARKERS = new Set(['next', 'coming'])
const DAY_PARTS = new Set(['morning', 'afternoon', 'evening', 'night'])
const SEASONS: Record<string, number> = { spring: 3, summer: 6, fall: 9, autumn: 9, winter: 12 }
const WEEKDAY_ABBREVIATIONS: Record<string, string> = {
	mon: 'monday',
	tue: 'tuesday',
	tues: 'tuesday',
	wed: 'wednesday',
	thu: 'thursday',
	thur: 'thursday',
	thurs: 'thursday',
	fri: 'friday',
	sat: 'saturday',
	sun: 'sunday',
}

type Unit = 'day' | 'week' | 'month' | 'year'

function unitOf(word: string | undefined): Unit | null {
	const singular = word?.replace(/s$/, '')
	return singular === 'day' || singular === 'week' || singular === 'month' || singular === 'year' ? singular : null
}

function weekdayIndex(word: string | undefined): number {
	if (!word) return -1
	return WEEKDAYS.indexOf(WEEKDAY_ABBREVIATIONS[word.replace(/\.$/, '')] ?? word)
}

function amountOf(word: string | undefined): number | null {
	if (!word) return null
	if (/^\d{1,3}$/.test(word)) return Number(word)
	return NUMBER_WORDS[word] ?? null
}

const day = (date: string): ResolvedDate => ({ phrase: date, preposition: 'on', date })

/**
 * Reads a relative date expression (its lower-case words, without a leading "the") against the reference date:
 * yesterday, today, tomorrow, tonight, this morning, last night, last/this/next week|weekend|month|year|season|
 * weekday, N days|weeks|months|years ago, in N days|weeks|months|years, the other day, and a bare weekday (past or
 * coming by the sentence's tense). Null when the words are not a relative date this grammar knows.
 */
export function resolveRelativeDate(
	words: string[],
	reference: string,
	direction: Direction,
	tense: Tense,
): ResolvedDate | null {
	const [first, second] = words
	if (words.length === 1) return resolveSingleWord(first!, reference, tense)
	if (words.length === 2 && first && second && DAY_PARTS.has(second)) {
		const offsets: Record<string, number> = { yesterday: -1, today: 0, this: 0, tomorrow: 1, last: -1 }
		const offset = offsets[first]
		if (offset === undefined || (first === 'last' && second !== 'night')) return null
		return {
			phrase: `the ${second} of ${addDays(reference, offset)}`,
			preposition: 'on',
			date: addDays(reference, offset),
		}
	}
	if (words.length === 2 && first === 'other') {
		return second === 'day' || second === 'night'
			? { phrase: `a few days before ${reference}`, preposition: null, date: null }
			: null
	}
	if (words.length === 2 && first && second) {
		const shift = PAST_MARKERS.has(first) ? -1 : FUTURE_MARKERS.has(first) ? 1 : first === 'this' ? 0 : null
		if (shift !== null) return resolveNamedPeriod(second, shift, reference)
	}
	return resolveCountedPeriod(words, reference, direction)
}

function resolveSingleWord(word: string, reference: string, tense: Tense): ResolvedDate | null {
	if (word === 'yesterday') return day(addDays(reference, -1))
	if (word === 'today') return day(reference)
	if (word === 'tomorrow') return day(addDays(reference, 1))
	if (word === 'tonight') return { phrase: `the evening of ${reference}`, preposition: 'on', date: reference }
	const weekday = weekdayIndex(word)
	if (weekday !== -1) return day(nearestWeekday(reference, weekday, tense === 'future' ? 1 : -1))
	return null
}

/** last/this/next + week, weekend, month, year, a season or a weekday. */
function resolveNamedPeriod(name: string, shift: -1 | 0 | 1, reference: string): ResolvedDate | null {
	const relation = shift === -1 ? 'before' : shift === 1 ? 'after' : 'of'
	if (name === 'week')
		return { phrase: `the week ${relation} ${reference}`, preposition: 'in', date: addDays(reference, 7 * shift) }
	if (name === 'weekend') {
		const weekday = weekdayOf(reference)
		if (shift === 0) {
			const saturday = weekday === 0 ? addDays(reference, -1) : addDays(reference, 6 - weekday)
			return { phrase: `the weekend of ${saturday}`, preposition: 'on', date: saturday }
		}
		const saturday = nearestWeekday(weekday === 0 && shift === -1 ? addDays(reference, -1) : reference, 6, shift)
		return { phrase: `the weekend ${relation} ${reference}`, preposition: 'on', date: saturday }
	}
	if (name === 'month') {
		const month = addMonths(reference, shift)
		return { phrase: monthLabel(month), preposition: 'in', date: month }
	}
	if (name === 'year') {
		const year = yearOf(reference) + shift
		return { phrase: String(year), preposition: 'in', date: `${year}-01-01` }
	}
	const season = SEASONS[name]
	if (season !== undefined) return resolveSeason(name, season, shift, reference)
	const weekday = weekdayIndex(name)
	if (weekday === -1) return null
	if (shift === 0) return day(weekdayOf(reference) === weekday ? reference : nearestWeekday(reference, weekday, 1))
	return day(nearestWeekday(reference, weekday, shift))
}

/** Seasons of the northern hemisphere: spring from March, summer from June, fall from September, winter from December. */
function resolveSeason(name: string, startMonth: number, shift: -1 | 0 | 1, reference: string): ResolvedDate {
	const date = toDate(reference)
	const month = date.getUTCMonth() + 1
	// The year in which the season that contains (or last started before) the reference date began.
	let year = date.getUTCFullYear()
	if (month < startMonth) year -= 1
	const inSeason = (month - startMonth + 12) % 12 < 3
	if (shift === -1 && inSeason) year -= 1
	if (shift === 1 || (shift === 0 && !inSeason)) year += 1
	const label = name === 'autumn' ? 'autumn' : name
	return { phrase: `${label} ${year}`, preposition: 'in', date: `${year}-${String(startMonth).padStart(2, '0')}-01` }
}

/** N days|weeks|months|years ago, in N ..., N ... from now. */
function resolveCountedPeriod(words: string[], reference: string, direction: Direction): ResolvedDate | null {
	if (direction === 'bare') return null
	const spoken = words.filter((word) => word !== 'ago' && word !== 'from' && word !== 'now')
	const quantity = spoken.filter((word) => word !== 'of')
	const unit = unitOf(quantity.at(-1))
	if (!unit || quantity.length < 2) return null
	const amounts = quantity.slice(0, -1).map(amountOf)
	if (amounts.some((amount) => amount === null)) return null
	// "a few" and "a couple" count as few and couple.
	const amount = amounts.length === 2 && amounts[0] === 1 ? amounts[1]! : amounts.reduce((a, b) => a! * b!, 1)!
	const sign = direction === 'behind' ? -1 : 1
	const written = spoken.join(' ')
	const relation = sign === -1 ? 'before' : 'after'
	if (unit === 'day') {
		const exact =
			amounts.length === 1 && /^\d|^(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten)$/.test(quantity[0]!)
		const date = addDays(reference, sign * amount)
		return exact ? day(date) : { phrase: `${written} ${relation} ${reference}`, preposition: null, date }
	}
	if (unit === 'week') {
		return {
			phrase: `${written} ${relation} ${reference}`,
			preposition: null,
			date: addDays(reference, sign * 7 * amount),
		}
	}
	if (unit === 'month') {
		const month = addMonths(reference, sign * amount)
		return { phrase: monthLabel(month), preposition: 'in', date: month }
	}
	const year = yearOf(reference) + sign * amount
	return { phrase: String(year), preposition: 'in', date: `${year}-01-01` }
}
