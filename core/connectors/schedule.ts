/**
 * A cron line for a connection's schedule, jittered by its id so that connections created together do not sync
 * together: the minute (and for intervals of a day or more, the hour and weekday) come from a hash of the id.
 */
export function cronFor(connectionId: string, everyHours: number): string {
	const hash = [...connectionId].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) >>> 0, 7)
	const minute = hash % 60
	if (everyHours < 24) {
		const step = Math.max(1, Math.round(everyHours))
		return `${minute} ${Math.floor(hash / 60) % step}-23/${step} * * *`
	}
	const hour = Math.floor(hash / 60) % 24
	if (everyHours < 168) return `${minute} ${hour} * * *`
	return `${minute} ${hour} * * ${Math.floor(hash / 1440) % 7}`
}
