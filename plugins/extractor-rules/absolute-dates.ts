import { isoFromParts, yearOf } from './calendar.ts'

const MONTHS: Record<string, number> = {}
for (const [index, name] of [
	'january',
	'february',
	'march',
	'april',
	'may',
	'june',
	'july',
	'august',
	'september',
	'october',
	'november',
	'december',
].entries()) {
	MONTHS[name] = index + 1
	MONTHS[name.slice(0, 3)] = index + 1
}
MONTHS.sept = 9

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/
const SLASHED_DATE = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/

export function monthNumber(word: string): number | undefined {
	return MONTHS[word.toLowerCase().replace(/\.$/, '')]
}

function dayNumber(word: string | undefined): number | null {
	const match = word ? /^(\d{1,2})(?:st|nd|rd|th)?$/.exec(word) : null
	const day = match ? Number(match[1]) : Number.NaN
	return day >= 1 && day <= 31 ? day : null
}

function yearNumber(word: string | undefined): number | null {
	return word && /^(1[6-9]|2\d)\d\d$/.test(word) ? Number(word) : null
}

/**
 * The ISO date an absolute date expression names, from its words: "8 May, 2023", "May 5th 2023", "the 5th of May",
 * "2023-05-08", "05/08/2023" (month first unless the first number cannot be a month), "May 2022" (the first of the
 * month), "2019" (the first of the year). A day and month without a year take the reference date's year. Words
 * around the expression are ignored ("1:56 pm on 8 May, 2023"). Null when no date can be read.
 */
export function parseAbsoluteDate(words: string[], referenceDate: string | null = null): string | null {
	for (const word of words) {
		const iso = ISO_DATE.exec(word)
		if (iso) return isoFromParts(Number(iso[1]), Number(iso[2]), Number(iso[3]))
		const slashed = SLASHED_DATE.exec(word)
		if (slashed) {
			const [first, second, year] = [Number(slashed[1]), Number(slashed[2]), Number(slashed[3])]
			return first > 12 ? isoFromParts(year, second, first) : isoFromParts(year, first, second)
		}
	}
	const monthAt = words.findIndex((word) => monthNumber(word) !== undefined && word.length >= 3)
	const year = words.map(yearNumber).find((value) => value !== null) ?? null
	if (monthAt === -1) return year !== null && words.length <= 2 ? `${year}-01-01` : null
	const month = monthNumber(words[monthAt]!)!
	const afterOf = words[monthAt - 1] === 'of' ? words[monthAt - 2] : undefined
	const day = dayNumber(words[monthAt + 1]) ?? dayNumber(words[monthAt - 1]) ?? dayNumber(afterOf)
	if (day === null) return year !== null ? isoFromParts(year, month, 1) : null
	const resolvedYear = year ?? (referenceDate ? yearOf(referenceDate) : null)
	return resolvedYear === null ? null : isoFromParts(resolvedYear, month, day)
}

/** The calendar date of `ExtractionInput.date`: an ISO timestamp, or failing that any readable date ("8 May, 2023"). */
export function parseReferenceDate(date: string | null): string | null {
	if (!date) return null
	const iso = ISO_DATE.exec(date.trim())
	if (iso) return isoFromParts(Number(iso[1]), Number(iso[2]), Number(iso[3]))
	return parseAbsoluteDate(
		date
			.toLowerCase()
			.split(/[^\p{L}\p{N}/.-]+/u)
			.filter(Boolean),
	)
}
