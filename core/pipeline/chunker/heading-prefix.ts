/** The heading path put on the first line of each chunk of a section, such as "Guide > Install". */
export interface HeadingPrefix {
	text: string
	/** The headings shown are `headings.slice(from, to)`. */
	from: number
	to: number
}

const SEPARATOR = ' > '
const MAX_PREFIX_CHARS = 200

export function prefixLimit(maxChars: number): number {
	return Math.min(MAX_PREFIX_CHARS, Math.floor(maxChars / 4))
}

/**
 * The longest tail of the heading path that fits in `limit` characters. When the section's own heading alone is too
 * long, the path ends at its parent (the caller then keeps the heading in the body, so it is not lost).
 */
export function headingPrefix(headings: string[], limit: number): HeadingPrefix {
	const ownFits = (headings.at(-1)?.length ?? 0) <= limit
	const to = ownFits ? headings.length : headings.length - 1
	let from = to
	let text = ''
	while (from > 0) {
		const candidate = text ? `${headings[from - 1]}${SEPARATOR}${text}` : headings[from - 1]!
		if (candidate.length > limit) break
		text = candidate
		from--
	}
	return { text, from, to }
}
