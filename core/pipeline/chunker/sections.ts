import { closesFence, fenceOpening } from './fence.ts'

/** A run of text under one heading; `headings` is the path from the outermost heading, [] before the first one. */
export interface Section {
	headings: string[]
	body: string
	/** The section began in an earlier piece of the text (its heading is not in this one). */
	continued?: boolean
}

/** A heading whose section is still open at the end of a text: what the next piece of a long text starts under. */
export interface OpenHeading {
	level: number
	text: string
}

const ATX_OPENING = /^ {0,3}(#{1,6})(?:[ \t]|$)/
const SETEXT_UNDERLINE = /^ {0,3}(=+|-{2,})[ \t]*$/
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]/

/**
 * Splits markdown-ish text at ATX (`## Title`) and setext (`Title` over `===` / `---`) headings. `open` are the
 * headings open where the text starts (a piece of a longer text); the headings open at its end are returned.
 */
export function splitSections(text: string, open: OpenHeading[] = []): { sections: Section[]; open: OpenHeading[] } {
	const sections: Section[] = []
	const stack = [...open]
	let body: string[] = []
	let fence: string | null = null
	const closeSection = () => {
		const section: Section = { headings: stack.map((entry) => entry.text), body: body.join('\n').trim() }
		if (sections.length === 0 && open.length > 0) section.continued = true
		sections.push(section)
	}

	const startSection = (level: number, heading: string) => {
		closeSection()
		while (stack.length > 0 && stack.at(-1)!.level >= level) stack.pop()
		stack.push({ level, text: heading })
		body = []
	}

	for (const line of text.split('\n')) {
		if (fence) {
			if (closesFence(line, fence)) fence = null
			body.push(line)
			continue
		}
		fence = fenceOpening(line)
		const atx = fence ? null : ATX_OPENING.exec(line)
		const atxTitle = atx ? stripClosingHashes(line.slice(atx[0].length).trim()) : ''
		const setext = fence ? null : SETEXT_UNDERLINE.exec(line)
		if (atx && atxTitle) startSection(atx[1]!.length, atxTitle)
		else if (setext && isSetextTitle(body)) {
			const title = body.pop()!.trim()
			startSection(setext[1]!.startsWith('=') ? 1 : 2, title)
		} else body.push(line)
	}
	closeSection()
	// Text before the first heading is a section of its own only when there is some.
	return { sections: sections.filter((section, i) => i > 0 || section.body !== ''), open: stack }
}

/** A setext title is a single-line paragraph: the last body line, not a list item, after a blank line or nothing. */
function isSetextTitle(body: string[]): boolean {
	const title = body.at(-1)
	if (title === undefined || title.trim() === '' || LIST_ITEM.test(title)) return false
	const before = body.at(-2)
	return before === undefined || before.trim() === ''
}

/** "Title ##" -> "Title". Done by hand: a regex for it backtracks quadratically on long runs of spaces. */
function stripClosingHashes(title: string): string {
	let end = title.length
	while (end > 0 && title[end - 1] === '#') end--
	if (end === title.length) return title
	if (end === 0) return ''
	const before = title[end - 1]
	return before === ' ' || before === '\t' ? title.slice(0, end).trimEnd() : title
}
