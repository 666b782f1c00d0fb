/** Longest summary, in characters: a few sentences, like the hosted API's short document summaries. */
export const SUMMARY_MAX = 300
/** Characters of the text a summary is read from: the opening of a 50 MB upload is enough, and cheap. */
const READ_CHARS = 20_000

/**
 * An offline extractive summary: the document's opening statements as written, up to SUMMARY_MAX characters, whole
 * sentences where they fit. Headings, code blocks, table rows and bare links say nothing a summary should repeat and
 * are skipped; null when no prose is left. A sentence ends at ".", "!" or "?" before a space, so dotted names, file
 * names and versions (Node.js, a.ts, 5.9.2) stay whole.
 */
export function extractiveSummary(text: string): string | null {
	const prose = proseOf(text.slice(0, READ_CHARS))
	if (prose === '') return null
	if (prose.length <= SUMMARY_MAX) return prose
	let summary = ''
	for (const sentence of prose.split(/(?<=[.!?]["')\]]?)\s+/)) {
		const next = summary === '' ? sentence : `${summary} ${sentence}`
		if (next.length > SUMMARY_MAX) break
		summary = next
	}
	return summary !== '' ? summary : cutAtWord(prose)
}

function proseOf(text: string): string {
	const lines: string[] = []
	let inFence = false
	for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
		const line = raw.trim()
		if (/^(```|~~~)/.test(line)) {
			inFence = !inFence
			continue
		}
		if (inFence || line === '' || /^#{1,6}\s/.test(line) || line.startsWith('|') || /^<?https?:\/\/\S+>?$/.test(line))
			continue
		lines.push(line.replace(/^(?:[-*+]\s+|\d+[.)]\s+|>\s?)/, ''))
	}
	return lines.join(' ').replace(/\s+/g, ' ').trim()
}

function cutAtWord(text: string): string {
	const cut = text.slice(0, SUMMARY_MAX - 1)
	const space = cut.lastIndexOf(' ')
	return `${(space > SUMMARY_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}
