/** Unix line endings, no trailing whitespace on any line, no blank lines at either end. */
export function normalize(text: string): string {
	return normalizeLines(text).replace(/^\n+/, '').trimEnd()
}

/** Unix line endings and no trailing whitespace on any line; the lines themselves stay as they are. */
export function normalizeLines(text: string): string {
	return text
		.replace(/\r\n?/g, '\n')
		.split('\n')
		.map((line) => line.trimEnd())
		.join('\n')
}
