export function when(iso: string | null | undefined): string {
	if (!iso) return '—'
	const date = new Date(iso)
	return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 19)}`
}

export function count(value: number | null | undefined): string {
	return value === null || value === undefined ? '—' : value.toLocaleString('en-US')
}

export function duration(startIso: string, endIso: string | null): string {
	if (!endIso) return 'running'
	const ms = Date.parse(endIso) - Date.parse(startIso)
	return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`
}

export function shorten(text: string | null | undefined, length = 80): string {
	if (!text) return ''
	return text.length > length ? `${text.slice(0, length - 1)}…` : text
}

export const TERMINAL_STATUSES = ['done', 'failed']
