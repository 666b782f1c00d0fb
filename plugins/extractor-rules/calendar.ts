/** Calendar arithmetic on ISO dates (`YYYY-MM-DD`), in UTC so no time zone shifts a day. */

export const MONTH_NAMES = [
	'January',
	'February',
	'March',
	'April',
	'May',
	'June',
	'July',
	'August',
	'September',
	'October',
	'November',
	'December',
]

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']

export function toDate(iso: string): Date {
	return new Date(`${iso}T00:00:00Z`)
}

export function toIso(date: Date): string {
	return date.toISOString().slice(0, 10)
}

export function isoFromParts(year: number, month: number, day: number): string | null {
	const date = new Date(Date.UTC(year, month - 1, day))
	if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null
	return toIso(date)
}

export function addDays(iso: string, days: number): string {
	const date = toDate(iso)
	date.setUTCDate(date.getUTCDate() + days)
	return toIso(date)
}

/** The first day of the month `months` away from the month of `iso`. */
export function addMonths(iso: string, months: number): string {
	const date = toDate(iso)
	return toIso(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1)))
}

export function yearOf(iso: string): number {
	return Number(iso.slice(0, 4))
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekdayOf(iso: string): number {
	return toDate(iso).getUTCDay()
}

/** "April 2023". */
export function monthLabel(iso: string): string {
	const date = toDate(iso)
	return `${MONTH_NAMES[date.getUTCMonth()]} ${date.getUTCFullYear()}`
}

/** The closest `weekday` strictly before (direction -1) or after (+1) `iso`. */
export function nearestWeekday(iso: string, weekday: number, direction: 1 | -1): string {
	const today = weekdayOf(iso)
	const distance = direction === -1 ? (today - weekday + 7) % 7 || 7 : (weekday - today + 7) % 7 || 7
	return addDays(iso, direction * distance)
}
