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

/** A document's lines, as counted: a conversation's turns (without their speakers), else its text lines. */
export interface CountedLines {
	lines: string[]
	/** Each line's fingerprint, null for a line too short to count. */
	prints: (string | null)[]
}

function fingerprint(line: string): string | null {
	const normalized = line.trim().replace(/\s+/g, ' ').toLowerCase()
	if (normalized.length < MIN_LINE_CHARS) return null
	return new Bun.CryptoHasher('sha256').update(normalized).digest('hex').slice(0, 24)
}

export function countedLines(text: string, turns: ConversationTurn[] | null): CountedLines {
	const lines = turns ? turns.map((turn) => turn.text) : text.split('\n')
	return { lines, prints: lines.map(fingerprint) }
}

function distinct(prints: (string | null)[]): string[] {
	const seen = new Set<string>()
	for (const print of prints) {
		if (print) seen.add(print)
		if (seen.size >= MAX_LINES) break
	}
	return [...seen]
}

/** Records the document's lines, so documents formed after it (or beside it in a batch) can count them. */
export async function recordLines(storage: Storage, documentId: string, counted: CountedLines): Promise<void> {
	await storage.memories.recordLines(documentId, distinct(counted.prints))
}

/**
 * The text and turns to extract from, without the lines repeated across the container's documents (recorded
 * already: see recordLines). `counted` holds the lines of `text`, or of `turns` when the document is a conversation
 * (`turns` may be its last turns only: the new ones of an incremental extraction).
 */
export async function withoutBoilerplate(
	storage: Storage,
	document: DocumentRecord,
	source: { text: string; turns: ConversationTurn[] | null },
	counted: CountedLines,
): Promise<{ text: string; turns: ConversationTurn[] | null }> {
	const prints = source.turns ? counted.prints.slice(counted.prints.length - source.turns.length) : counted.prints
	const wanted = distinct(prints)
	if (wanted.length === 0) return source
	const repeated = await storage.memories.repeatedLines(
		{ orgId: document.orgId },
		document.containerTag,
		wanted,
		BOILERPLATE_MIN_DOCUMENTS,
	)
	if (repeated.size === 0) return source
	const kept = (i: number) => prints[i] === null || !repeated.has(prints[i]!)
	if (source.turns) return { text: source.text, turns: source.turns.filter((_, i) => kept(i)) }
	return { text: counted.lines.filter((_, i) => kept(i)).join('\n'), turns: null }
}
