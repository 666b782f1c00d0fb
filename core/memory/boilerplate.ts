import type { DocumentRecord } from '../domain/types.ts'
import type { ConversationTurn } from '../plugins/contract.ts'
import type { Storage } from '../plugins/storage.ts'

/**
 * Boilerplate: a line repeated verbatim across a container's documents (an email footer, a disclaimer, a page's
 * navigation, a bot's greeting) says nothing about any one of them, so no memory is formed from it. Each document's
 * distinct lines are kept as fingerprints; a line found in this many documents of the container is boilerplate.
 */
export const BOILERPLATE_MIN_DOCUMENTS = 3

/** Shorter lines ("Thanks!", "Hi Dana,") form no memories of their own, so they are not worth counting. */
const MIN_LINE_CHARS = 20
const MAX_LINES = 2_000

const normalise = (line: string) => line.trim().replace(/\s+/g, ' ').toLowerCase()

function fingerprint(line: string): string | null {
	const normalised = normalise(line)
	if (normalised.length < MIN_LINE_CHARS) return null
	return new Bun.CryptoHasher('sha256').update(normalised).digest('hex').slice(0, 24)
}

/** The lines a document is counted by: a conversation's turns (without their speakers), else its text lines. */
function linesOf(text: string, turns: ConversationTurn[] | null): string[] {
	return turns ? turns.map((turn) => turn.text) : text.split('\n')
}

function fingerprints(lines: string[]): string[] {
	const distinct = new Set<string>()
	for (const line of lines) {
		const print = fingerprint(line)
		if (print) distinct.add(print)
		if (distinct.size >= MAX_LINES) break
	}
	return [...distinct]
}

/** Records the document's lines, so documents formed after it (or beside it in a batch) can count them. */
export async function recordLines(
	storage: Storage,
	document: DocumentRecord,
	text: string,
	turns: ConversationTurn[] | null,
): Promise<void> {
	await storage.memories.recordLines(document.id, fingerprints(linesOf(text, turns)))
}

/**
 * The text and turns to extract from, without the lines repeated across the container's documents (recorded
 * already: see recordLines).
 */
export async function withoutBoilerplate(
	storage: Storage,
	document: DocumentRecord,
	text: string,
	turns: ConversationTurn[] | null,
): Promise<{ text: string; turns: ConversationTurn[] | null }> {
	const prints = fingerprints(linesOf(text, turns))
	if (prints.length === 0) return { text, turns }
	const repeated = await storage.memories.repeatedLines(
		{ orgId: document.orgId },
		document.containerTag,
		prints,
		BOILERPLATE_MIN_DOCUMENTS,
	)
	if (repeated.size === 0) return { text, turns }
	const kept = (line: string) => {
		const print = fingerprint(line)
		return print === null || !repeated.has(print)
	}
	if (turns) return { text, turns: turns.filter((turn) => kept(turn.text)) }
	return { text: text.split('\n').filter(kept).join('\n'), turns }
}
