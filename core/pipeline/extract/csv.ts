import { parse } from 'csv-parse/sync'
import { PermanentStageError } from '../../errors.ts'
import { rowsToText } from './table-text.ts'

/** A CSV file as `header: value` records, one line per row (the delimiter is guessed among , ; tab |). */
export function csvToText(text: string): string {
	const delimiter = guessDelimiter(text)
	let rows: string[][]
	try {
		rows = parse(text, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, bom: true })
	} catch (error) {
		throw new PermanentStageError(`the CSV is malformed: ${(error as Error).message}`)
	}
	return rowsToText(rows)
}

function guessDelimiter(text: string): string {
	const firstLine = text.slice(0, 4096).split('\n')[0] ?? ''
	const counts = [',', ';', '\t', '|'].map((candidate) => [candidate, firstLine.split(candidate).length] as const)
	return counts.sort((a, b) => b[1] - a[1])[0]![0]
}
