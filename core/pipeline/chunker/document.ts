import { chunkBody } from './body.ts'
import { type HeadingPrefix, headingPrefix, prefixLimit } from './heading-prefix.ts'
import { type OpenHeading, type Section, splitSections } from './sections.ts'

/**
 * Chunks markdown-ish text section by section: no chunk spans two sections, and each chunk of a section with a heading
 * starts with the heading path on its own line. The heading markup itself (`##`, `===`) is replaced by that path.
 */
export function chunkDocument(text: string, maxChars: number): string[] {
	return chunkDocumentPiece(text, maxChars, []).chunks
}

/** chunkDocument for a piece of a longer text, which starts under the `open` headings; returns those open at its end. */
export function chunkDocumentPiece(
	text: string,
	maxChars: number,
	open: OpenHeading[],
): { chunks: string[]; open: OpenHeading[] } {
	const limit = prefixLimit(maxChars)
	const { sections, open: stillOpen } = splitSections(text, open)
	const prefixes = sections.map((section) => headingPrefix(section.headings, limit))
	const chunks: string[] = []
	sections.forEach((section, i) => {
		const prefix = prefixes[i]!
		// A continued section's hidden heading went into its body in the piece the section began in.
		const ownHeadingHidden = section.headings.length > 0 && prefix.to < section.headings.length && !section.continued
		const body = ownHeadingHidden ? `${section.headings.at(-1)}\n\n${section.body}` : section.body
		const budget = prefix.text ? maxChars - prefix.text.length - 1 : maxChars
		const parts = chunkBody(body, budget)
		if (parts.length > 0) chunks.push(...parts.map((part) => (prefix.text ? `${prefix.text}\n${part}` : part)))
		else if (prefix.text && !shownByNext(section, sections[i + 1], prefixes[i + 1])) chunks.push(prefix.text)
	})
	return { chunks, open: stillOpen }
}

/** Whether a heading with no text of its own appears in the heading path of the next section (its first child). */
function shownByNext(section: Section, next: Section | undefined, nextPrefix: HeadingPrefix | undefined): boolean {
	if (!next || !nextPrefix || next.headings.length <= section.headings.length) return false
	const own = section.headings.length - 1
	const isAncestor = section.headings.every((heading, i) => next.headings[i] === heading)
	return isAncestor && nextPrefix.from <= own && own < nextPrefix.to
}
