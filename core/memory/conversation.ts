import type { DocumentRecord } from '../domain/types.ts'
import { parseSpeakerLine, parseTranscript } from '../pipeline/transcript.ts'
import type { ConversationTurn } from '../plugins/contract.ts'

/** Documents ingested through POST /v4/conversations carry this source: they are conversations whatever their size. */
export const CONVERSATION_SOURCE = 'conversation'

export interface ParsedConversation {
	preamble: string
	turns: ConversationTurn[]
}

/**
 * The turns of a document that is a conversation, or null. Any document whose text passes the transcript rule
 * counts (so a POST /v3/documents of `role: text` lines forms the same memories as a conversation); a document
 * from the conversations endpoint counts from its first turn on, even when the rule would want more.
 */
export function conversationOf(document: DocumentRecord, text: string): ParsedConversation | null {
	const transcript = parseTranscript(text) ?? (document.source === CONVERSATION_SOURCE ? leniently(text) : null)
	if (!transcript) return null
	return {
		preamble: transcript.preamble,
		turns: transcript.turns.map((turn, index) => ({ speaker: turn.speaker, text: turn.text, index })),
	}
}

function leniently(text: string): { preamble: string; turns: { speaker: string; text: string }[] } | null {
	const preamble: string[] = []
	const turns: { speaker: string; lines: string[] }[] = []
	for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
		const turn = parseSpeakerLine(line)
		if (turn) turns.push({ speaker: turn.speaker, lines: [turn.text] })
		else if (turns.length > 0) turns.at(-1)!.lines.push(line)
		else preamble.push(line)
	}
	if (turns.length === 0) return null
	return {
		preamble: preamble.join('\n').trim(),
		turns: turns.map((turn) => ({ speaker: turn.speaker, text: turn.lines.join('\n').trim() })),
	}
}

export function renderTurns(turns: ConversationTurn[]): string {
	return turns.map((turn) => (turn.text ? `${turn.speaker}: ${turn.text}` : `${turn.speaker}:`)).join('\n')
}

/** Identifies the turns already extracted, so a re-send that only appends turns is recognised as such. */
export function turnsHash(turns: ConversationTurn[]): string {
	return new Bun.CryptoHasher('sha256').update(renderTurns(turns)).digest('hex')
}

const DATE_KEYS = ['date', 'documentDate', 'document_date', 'conversationDate', 'createdAt', 'timestamp']
const PREAMBLE_DATE = /^\s*\[?\s*(?:date|time|when)\s*[:=]\s*([^\]\n]+?)\s*\]?\s*$/im

/**
 * When the content was written or said, for resolving relative dates: a metadata date (`date`, `documentDate`,
 * `conversationDate`, `createdAt` or `timestamp`; ISO or any parseable form, or epoch seconds/milliseconds), else a
 * `[date: ...]` line before the first turn, else the document's creation time. ISO 8601.
 */
export function documentDate(document: DocumentRecord, preamble: string): string {
	for (const key of DATE_KEYS) {
		const parsed = parseDate(document.metadata?.[key])
		if (parsed) return parsed
	}
	const fromPreamble = PREAMBLE_DATE.exec(preamble)?.[1]
	return parseDate(fromPreamble) ?? document.createdAt.toISOString()
}

function parseDate(value: unknown): string | null {
	if (typeof value === 'number' && Number.isFinite(value)) {
		const date = new Date(value < 1e11 ? value * 1000 : value)
		return Number.isNaN(date.getTime()) ? null : date.toISOString()
	}
	if (typeof value !== 'string' || value.trim() === '') return null
	const cleaned = value.trim().replace(/^(\d{1,2}:\d{2}\s*[ap]m)\s+on\s+/i, '$1 ')
	const time = Date.parse(cleaned)
	if (!Number.isNaN(time)) return new Date(time).toISOString()
	// "1:56 pm on 8 May, 2023" (the LoCoMo form): the date part alone.
	const datePart = Date.parse(value.replace(/^.*\bon\s+/i, '').replace(',', ''))
	return Number.isNaN(datePart) ? null : new Date(datePart).toISOString()
}
