/** Markdown output: every bench prints tables a reader can paste into bench/README.md. */

export type Cell = string | number | null | undefined

export function markdownTable(headers: string[], rows: Cell[][]): string {
	const text = (cell: Cell) => (cell === null || cell === undefined ? '–' : String(cell))
	const lines = [
		`| ${headers.join(' | ')} |`,
		`| ${headers.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
		...rows.map((row) => `| ${row.map(text).join(' | ')} |`),
	]
	return lines.join('\n')
}

export function printTable(title: string, headers: string[], rows: Cell[][]): void {
	console.log(`\n**${title}**\n`)
	console.log(markdownTable(headers, rows))
}

/** Milliseconds with one decimal below 100, whole above. */
export function ms(value: number): string {
	if (!Number.isFinite(value)) return '–'
	return value < 100 ? value.toFixed(1) : Math.round(value).toString()
}

export function fixed(value: number, digits = 1): string {
	return Number.isFinite(value) ? value.toFixed(digits) : '–'
}

export function bytes(value: number): string {
	if (!Number.isFinite(value)) return '–'
	const units = ['B', 'KB', 'MB', 'GB']
	let unit = 0
	let scaled = value
	while (Math.abs(scaled) >= 1024 && unit < units.length - 1) {
		scaled /= 1024
		unit++
	}
	return `${scaled.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`
}

/** A target's standing, e.g. `met (12.1 <= 15)`. */
export function verdict(value: number, limit: number, direction: 'max' | 'min'): string {
	if (!Number.isFinite(value)) return 'not measured'
	const met = direction === 'max' ? value <= limit : value >= limit
	return `${met ? 'met' : 'MISSED'} (${fixed(value)} ${direction === 'max' ? '<=' : '>='} ${limit})`
}

export function heading(text: string): void {
	console.log(`\n## ${text}\n`)
}

export function note(text: string): void {
	console.log(`\n> ${text}`)
}
