import { parseSpeakerLine } from '../transcript.ts'

/**
 * Chat sessions sent as JSON: an array of messages, `{messages: [...]}` (or `conversation`, `turns`, `dialogue`,
 * `chat`), each message OpenAI-style (`role`, `content` as text or as parts) and/or named (`speaker`, `name`,
 * `author`, `from`, `user`). Such content is read as the `Speaker: text` transcript it is, so chunking and memory
 * extraction treat it as a conversation.
 */

const NAME_KEYS = ['speaker', 'name', 'author', 'from', 'user', 'sender']
const ROLE_KEYS = ['role', 'type']
const TEXT_KEYS = ['content', 'text', 'message', 'body', 'utterance']
const LIST_KEYS = ['messages', 'conversation', 'turns', 'dialogue', 'dialog', 'chat']
const ROLES = new Set(['user', 'assistant', 'system', 'tool', 'human', 'ai', 'bot', 'model'])

export interface ChatLine {
	speaker: string
	text: string
}

/** The messages of a JSON value that is a chat, or null. Every item must read as a message; at least one. */
export function chatMessages(value: unknown): ChatLine[] | null {
	const list = messageList(value)
	if (!list || list.length === 0) return null
	const lines: ChatLine[] = []
	for (const item of list) {
		const line = messageOf(item)
		if (!line) return null
		lines.push(line)
	}
	return lines
}

/** The transcript of chat messages: one `Speaker: text` line per message, the text on one line. */
export function renderChat(lines: ChatLine[]): string {
	return lines.map(({ speaker, text }) => (text ? `${speaker}: ${text}` : `${speaker}:`)).join('\n')
}

function messageList(value: unknown): unknown[] | null {
	if (Array.isArray(value)) return value
	if (typeof value !== 'object' || value === null) return null
	for (const key of LIST_KEYS) {
		const found = (value as Record<string, unknown>)[key]
		if (Array.isArray(found)) return found
	}
	return null
}

function messageOf(item: unknown): ChatLine | null {
	if (typeof item !== 'object' || item === null || Array.isArray(item)) return null
	const record = item as Record<string, unknown>
	const text = TEXT_KEYS.map((key) => textOf(record[key])).find((found) => found !== null)
	if (text === undefined) return null
	const name = NAME_KEYS.map((key) => record[key]).find((v): v is string => typeof v === 'string' && v.trim() !== '')
	const role = ROLE_KEYS.map((key) => record[key]).find(
		(v): v is string => typeof v === 'string' && ROLES.has(v.trim().toLowerCase()),
	)
	const roleName = ROLE_KEYS.map((key) => record[key]).find((v): v is string => typeof v === 'string')
	const speaker = speakerOf(name) ?? role?.trim().toLowerCase() ?? speakerOf(roleName)
	return speaker ? { speaker, text: oneLine(text) } : null
}

/** A name usable as a transcript speaker (what the transcript rule reads back as one), or null. */
function speakerOf(name: string | undefined): string | null {
	const cleaned = name
		?.replace(/[:\n\r]/g, ' ')
		.replace(/\s+/g, ' ')
		.trim()
	if (!cleaned) return null
	if (parseSpeakerLine(`${cleaned}: x`)) return cleaned
	const capitalised = cleaned.charAt(0).toUpperCase() + cleaned.slice(1)
	return parseSpeakerLine(`${capitalised}: x`) ? capitalised : null
}

/** Message content as text: a string, or OpenAI-style parts (`{type: 'text', text}`; others are left out). */
function textOf(value: unknown): string | null {
	if (typeof value === 'string') return value
	if (!Array.isArray(value)) return null
	const texts = value.flatMap((part) => {
		if (typeof part === 'string') return [part]
		if (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string')
			return [(part as { text: string }).text]
		return []
	})
	return texts.length > 0 ? texts.join(' ') : null
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, ' ').trim()
}

/** How far into a text the JSON of an embedded chat may start, and how many starts are tried. */
const MAX_PREAMBLE_CHARS = 2_000
const MAX_STARTS = 8
/** `[` or `{` at the start of a line or after a colon or space: where embedded JSON may begin. */
const JSON_START = /(?:^|[\s:])([[{])/g

/**
 * A chat sent as JSON inside text, after a preamble ("Here is the date the following session took place: ..."
 * and then a JSON array of messages): the preamble and the messages, or null when the text ends in no such JSON.
 */
export function embeddedChat(text: string): { preamble: string; lines: ChatLine[] } | null {
	const trimmed = text.trim()
	if (!(trimmed.endsWith(']') || trimmed.endsWith('}'))) return null
	let tries = 0
	for (const match of trimmed.matchAll(JSON_START)) {
		const start = match.index + match[0].length - 1
		if (start > MAX_PREAMBLE_CHARS || ++tries > MAX_STARTS) break
		let value: unknown
		try {
			value = JSON.parse(trimmed.slice(start))
		} catch {
			continue
		}
		const lines = chatMessages(value)
		return lines ? { preamble: trimmed.slice(0, start).trim(), lines } : null
	}
	return null
}

/** A preamble line that announces a date ("...took place: 1:56 pm on 8 May, 2023"): what follows its colon. */
const DATE_ANNOUNCEMENT =
	/^[^:\n]*\b(?:date|time|when|took place|held|recorded|on)\b[^:\n]*:\s+(?<date>[^\n]*(?:\b\d{4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)[^\n]*)$/i

/**
 * The transcript of an embedded chat: its preamble, with a line announcing a date written as `[date: ...]` (the
 * form conversation dates are read from), then one `Speaker: text` line per message.
 */
export function renderEmbeddedChat(chat: { preamble: string; lines: ChatLine[] }): string {
	const preamble = chat.preamble
		.split('\n')
		.map((line) => {
			const date = DATE_ANNOUNCEMENT.exec(line.trim())?.groups?.date
			return date ? `[date: ${date.trim()}]` : line
		})
		.join('\n')
		.trim()
	const transcript = renderChat(chat.lines)
	return preamble ? `${preamble}\n${transcript}` : transcript
}
