/**
 * Table rows as records the search can match on their own: with a header row, each row becomes
 * `Header: value; Other: value`; a table of one row or without a usable header keeps its cells joined with ` | `.
 */
export function rowsToText(rows: string[][]): string {
	const filled = rows.filter((row) => row.some((cell) => cell.trim()))
	if (filled.length === 0) return ''
	const [header, ...body] = filled
	const usableHeader =
		body.length > 0 && header!.every((cell) => cell.trim() !== '' && !/^-?\d+([.,]\d+)?$/.test(cell.trim()))
	if (!usableHeader) return filled.map((row) => row.map((cell) => cell.trim()).join(' | ')).join('\n')
	return body
		.map((row) =>
			row
				.map((cell, i) => (cell.trim() ? `${header![i]?.trim() || `Column ${i + 1}`}: ${cell.trim()}` : ''))
				.filter(Boolean)
				.join('; '),
		)
		.filter(Boolean)
		.join('\n')
}
