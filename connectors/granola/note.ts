import { type ExternalDocument, parseTranscript } from '../../core/index.ts'
import type { GranolaPerson, NoteDetail, TranscriptEntry } from './types.ts'

/**
 * A note as one Markdown document: bracketed header lines (so they are never mistaken for speaker lines, and
 * `[date: ...]` dates the conversation), the AI summary, then the transcript as `Speaker: text` turns so the
 * conversation extraction applies.
 */
export function noteDocument(note: NoteDetail): ExternalDocument {
	const title = note.title?.trim() || 'Untitled meeting'
	const meetingStart = meetingStartOf(note)
	const attendees = (note.attendees ?? []).map(personLabel).filter(Boolean)
	const header = [`# ${title}`, `[date: ${meetingStart}]`]
	if (attendees.length > 0) header.push(`[attendees: ${attendees.join(', ')}]`)
	const summary = (note.summary_markdown ?? note.summary_text ?? '').trim()
	const turns = transcriptTurns(note)
	const content = compose(header, summary, turns)
	const metadata: Record<string, string> = {
		type: 'granola',
		title,
		createdAt: note.created_at,
		updatedAt: note.updated_at,
		meetingStart,
		date: meetingStart,
	}
	if (attendees.length > 0) metadata.attendees = attendees.join(', ')
	if (note.owner?.email) metadata.owner = note.owner.email
	return {
		externalId: note.id,
		version: note.updated_at,
		title,
		content,
		url: note.web_url ?? null,
		metadata,
		sourceType: 'granola_note',
	}
}

/**
 * The transcript rule wants most lines to be turns: where a short meeting's Markdown summary and headings would
 * outweigh its turns, the summary is written on one bracketed header line instead.
 */
function compose(header: string[], summary: string, turns: string[]): string {
	const build = (summaryText: string) => {
		const sections = [header.join('\n')]
		if (summaryText) sections.push(`## Summary\n\n${summaryText}`)
		if (turns.length > 0) sections.push(`## Transcript\n\n${turns.join('\n')}`)
		return sections.join('\n\n')
	}
	const full = build(summary)
	if (turns.length < 2 || parseTranscript(full)) return full
	const oneLine = summary
		.split('\n')
		.map((line) => line.replace(/^\s*(?:[-*+]|#+|\d+\.)\s*/, '').trim())
		.filter(Boolean)
		.join('; ')
	const compact = [...header]
	if (oneLine) compact.push(`[summary: ${oneLine.replace(/[[\]]/g, '')}]`)
	return `${compact.join('\n')}\n\n${turns.join('\n')}`
}

/** The calendar event's start where the note has one, else when the note was created. */
function meetingStartOf(note: NoteDetail): string {
	const event = note.calendar_event ?? {}
	for (const key of ['scheduled_start_time', 'start_time', 'start']) {
		const value = event[key]
		const text = typeof value === 'string' ? value : (value as { dateTime?: unknown } | null)?.dateTime
		if (typeof text === 'string' && !Number.isNaN(Date.parse(text))) return new Date(text).toISOString()
	}
	return note.created_at
}

function personLabel(person: GranolaPerson): string {
	const name = person.name?.trim()
	const email = person.email?.trim()
	if (name && email) return `${name} <${email}>`
	return name || email || ''
}

/** Consecutive entries of one speaker become one turn. */
function transcriptTurns(note: NoteDetail): string[] {
	const turns: { speaker: string; text: string[] }[] = []
	const others = (note.attendees ?? []).filter((person) => !sameAs(person, note.owner))
	for (const entry of note.transcript ?? []) {
		const text = entry.text?.replace(/\s+/g, ' ').trim()
		if (!text) continue
		const speaker = speakerOf(entry, note.owner, others)
		const last = turns.at(-1)
		if (last?.speaker === speaker) last.text.push(text)
		else turns.push({ speaker, text: [text] })
	}
	return turns.map((turn) => `${turn.speaker}: ${turn.text.join(' ')}`)
}

/**
 * The microphone is the note's owner; the other side is the one other attendee when there is exactly one, else
 * the diarization label Granola gave, else "Other".
 */
function speakerOf(entry: TranscriptEntry, owner: GranolaPerson | null | undefined, others: GranolaPerson[]): string {
	if (entry.speaker?.source === 'microphone') return speakerName(owner?.name) ?? 'Me'
	const label = entry.speaker?.diarization_label?.trim()
	if (label) return speakerName(/^speaker\b/i.test(label) ? label : `Speaker ${label}`) ?? 'Other'
	if (others.length === 1) return speakerName(others[0]!.name) ?? 'Other'
	return 'Other'
}

/** A name as the transcript rule reads speakers: one to three capitalised words, no colon. */
function speakerName(name: string | null | undefined): string | null {
	const words = (name ?? '')
		.replace(/[:\n]/g, ' ')
		.split(/\s+/)
		.filter(Boolean)
		.slice(0, 3)
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
	return words.length > 0 ? words.join(' ') : null
}

function sameAs(person: GranolaPerson, owner: GranolaPerson | null | undefined): boolean {
	if (!owner) return false
	if (person.email && owner.email) return person.email.toLowerCase() === owner.email.toLowerCase()
	return Boolean(person.name && person.name === owner.name)
}
