import type { ExtractionInput } from '../../core/index.ts'

/** One request's share of an extraction input: a run of whole turns, or of whole document chunks or paragraphs. */
export interface InputPart {
	/** The share as an extraction input of its own (what the fallback extractor is given for it). */
	input: ExtractionInput
	/** The numbered units the model sees and cites in `sources`: turn indexes, or chunk positions. */
	units: { number: number; label: string; text: string }[]
	kind: 'turns' | 'chunks' | 'text'
}

/**
 * Splits the input into at most `maxCalls` parts of about equal length, each at most `maxCharsPerCall` long when
 * `maxCalls` allows it (otherwise the parts are longer: the number of calls is the bound that holds). Turns, chunks
 * and paragraphs are never cut.
 */
export function splitIntoParts(input: ExtractionInput, maxCalls: number, maxCharsPerCall: number): InputPart[] {
	if (input.turns) {
		const units = input.turns.map((turn) => ({
			number: turn.index,
			label: `[${turn.index}] ${turn.speaker}:`,
			text: turn.text,
		}))
		return group(units, maxCalls, maxCharsPerCall).map((members) => {
			const indexes = new Set(members.map((unit) => unit.number))
			const turns = input.turns!.filter((turn) => indexes.has(turn.index))
			const text = turns.map((turn) => `${turn.speaker}: ${turn.text}`).join('\n')
			return { kind: 'turns', units: members, input: { ...input, turns, text } }
		})
	}
	if (input.chunks.length > 0) {
		const units = input.chunks.map((chunk) => ({
			number: chunk.position,
			label: `[${chunk.position}]`,
			text: chunk.content,
		}))
		return group(units, maxCalls, maxCharsPerCall).map((members) => {
			const positions = new Set(members.map((unit) => unit.number))
			const chunks = input.chunks.filter((chunk) => positions.has(chunk.position))
			const text = chunks.map((chunk) => chunk.content).join('\n\n')
			return { kind: 'chunks', units: members, input: { ...input, chunks, text } }
		})
	}
	const paragraphs = input.text
		.split(/\n\s*\n/)
		.map((text) => text.trim())
		.filter(Boolean)
		.map((text, index) => ({ number: index, label: '', text }))
	return group(paragraphs, maxCalls, maxCharsPerCall).map((members) => {
		const text = members.map((unit) => unit.text).join('\n\n')
		return { kind: 'text', units: members, input: { ...input, text } }
	})
}

/** Contiguous groups: each unit goes to the group its middle character falls in. */
function group<T extends { text: string }>(units: T[], maxCalls: number, maxCharsPerCall: number): T[][] {
	const total = units.reduce((sum, unit) => sum + unit.text.length, 0)
	if (units.length === 0 || total === 0) return []
	const count = Math.max(1, Math.min(maxCalls, Math.ceil(total / maxCharsPerCall), units.length))
	const size = total / count
	const groups: T[][] = Array.from({ length: count }, () => [])
	let offset = 0
	for (const unit of units) {
		const middle = offset + unit.text.length / 2
		groups[Math.min(count - 1, Math.floor(middle / size))]!.push(unit)
		offset += unit.text.length
	}
	return groups.filter((members) => members.length > 0)
}
