/** Fenced code blocks (``` or ~~~), which hide headings and blank lines from the structure parsers. */

const FENCE_OPENING = /^ {0,3}(`{3,}|~{3,})/
const FENCE_CLOSING = /^ {0,3}(`{3,}|~{3,})[ \t]*$/

/** The fence marker a line opens (such as "```"), or null. */
export function fenceOpening(line: string): string | null {
	return FENCE_OPENING.exec(line)?.[1] ?? null
}

export function closesFence(line: string, marker: string): boolean {
	const closing = FENCE_CLOSING.exec(line)?.[1]
	return closing !== undefined && closing[0] === marker[0] && closing.length >= marker.length
}
