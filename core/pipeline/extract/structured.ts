import type { Metadata, MetadataValue } from '../../domain/types.ts'
import { chatMessages, renderChat } from './chat-messages.ts'
import { shortTitle } from './text.ts'

export type Structured = Record<string, unknown> | unknown[]

/** A JSON object or array given as content (as JSON text), or null when the content is something else. */
export function parseStructured(content: string): Structured | null {
	const trimmed = content.trim()
	if (!(trimmed.startsWith('{') && trimmed.endsWith('}')) && !(trimmed.startsWith('[') && trimmed.endsWith(']'))) {
		return null
	}
	try {
		const value = JSON.parse(trimmed)
		return typeof value === 'object' && value !== null ? (value as Structured) : null
	} catch {
		return null
	}
}

/**
 * Readable text that keeps keys and nesting, YAML-like: `key: value` lines, nested objects indented under their key,
 * array items as `- ` lines. A chat (an array of messages, or `{messages: [...]}`; chat-messages.ts) becomes a
 * `Speaker: text` transcript, which the chunker and memory extraction read as a conversation.
 */
export function structuredToText(value: Structured): string {
	const transcript = asTranscript(value)
	if (transcript) return transcript
	return renderLines(value, '').join('\n')
}

/** A `title`, `name`, `subject` or `headline` string at the top of an object. */
export function structuredTitle(value: Structured): string | null {
	if (Array.isArray(value)) return null
	for (const key of ['title', 'name', 'subject', 'headline']) {
		const found = value[key]
		if (typeof found === 'string' && found.trim()) return shortTitle(found)
	}
	return null
}

function asTranscript(value: Structured): string | null {
	const lines = chatMessages(value)
	return lines ? renderChat(lines) : null
}

function scalar(value: unknown): string | null {
	if (value === null) return 'null'
	if (typeof value === 'string') return value
	if (typeof value === 'number' || typeof value === 'boolean') return String(value)
	return null
}

function renderLines(value: unknown, pad: string): string[] {
	if (Array.isArray(value)) {
		if (value.length === 0) return [`${pad}[]`]
		return value.flatMap((item) => {
			const plain = scalar(item)
			if (plain !== null) return [`${pad}- ${indentContinuation(plain, `${pad}  `)}`]
			const nested = renderLines(item, `${pad}  `)
			nested[0] = `${pad}- ${nested[0]!.slice(pad.length + 2)}`
			return nested
		})
	}
	if (typeof value === 'object' && value !== null) {
		const entries = Object.entries(value)
		if (entries.length === 0) return [`${pad}{}`]
		return entries.flatMap(([key, item]) => {
			const plain = scalar(item)
			if (plain !== null) return [`${pad}${key}: ${indentContinuation(plain, `${pad}  `)}`]
			if (Array.isArray(item) && item.length === 0) return [`${pad}${key}: []`]
			if (!Array.isArray(item) && Object.keys(item as object).length === 0) return [`${pad}${key}: {}`]
			return [`${pad}${key}:`, ...renderLines(item, `${pad}  `)]
		})
	}
	return [`${pad}${scalar(value) ?? String(value)}`]
}

function indentContinuation(text: string, pad: string): string {
	return text.replace(/\r\n?/g, '\n').replaceAll('\n', `\n${pad}`)
}

export const MAX_METADATA_FIELDS = 50

/**
 * Metadata from fields of structured content, for filters: each path (`author`, `stats.views`, `items.0.sku`)
 * becomes a metadata key of the same name. Strings, numbers and booleans are copied; an array of them becomes a
 * string array; a path that is missing or holds an object is left out.
 */
export function metadataFromFields(value: Structured, paths: string[]): Metadata {
	const metadata: Metadata = {}
	for (const path of paths) {
		const found = valueAt(value, path)
		const converted = toMetadataValue(found)
		if (converted !== undefined) metadata[path] = converted
	}
	return metadata
}

function valueAt(value: unknown, path: string): unknown {
	let current = value
	for (const segment of path.split('.')) {
		if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)]
		else if (typeof current === 'object' && current !== null && !Array.isArray(current))
			current = Object.hasOwn(current, segment) ? (current as Record<string, unknown>)[segment] : undefined
		else return undefined
	}
	return current
}

function toMetadataValue(value: unknown): MetadataValue | undefined {
	if (typeof value === 'string' || typeof value === 'boolean') return value
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
	if (Array.isArray(value) && value.every((item) => ['string', 'number', 'boolean'].includes(typeof item))) {
		return value.map(String)
	}
	return undefined
}
