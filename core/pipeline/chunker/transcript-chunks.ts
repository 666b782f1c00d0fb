import type { Transcript, TranscriptTurn } from '../transcript.ts'
import { chunkBody } from './body.ts'

/**
 * Chunks a chat transcript into whole turns packed up to `targetChars` (several turns per chunk). A turn is split
 * only when it alone is longer than `maxChars`; its pieces then each repeat the speaker label. The preamble stays
 * with the first turn.
 */
export function chunkTranscript({ preamble, turns }: Transcript, maxChars: number, targetChars: number): string[] {
	const chunks: string[] = []
	let current = ''
	let onlyPreamble = false
	if (preamble) {
		const parts = chunkBody(preamble, maxChars)
		current = parts.pop() ?? ''
		chunks.push(...parts)
		onlyPreamble = current !== ''
	}
	for (const turn of turns) {
		const rendered = renderTurn(turn)
		// The preamble may take the first turn up to maxChars, since a preamble alone says little.
		const limit = onlyPreamble ? maxChars : targetChars
		onlyPreamble = false
		if (current && current.length + 1 + rendered.length <= limit) {
			current += `\n${rendered}`
			continue
		}
		if (current) chunks.push(current)
		if (rendered.length <= maxChars) {
			current = rendered
			continue
		}
		const parts = splitTurn(turn, maxChars)
		current = parts.pop() ?? ''
		chunks.push(...parts)
	}
	if (current) chunks.push(current)
	return chunks
}

function renderTurn({ speaker, text }: TranscriptTurn): string {
	return text ? `${speaker}: ${text}` : `${speaker}:`
}

function splitTurn(turn: TranscriptTurn, maxChars: number): string[] {
	const label = `${turn.speaker}: `
	if (label.length > maxChars / 4) return chunkBody(renderTurn(turn), maxChars)
	return chunkBody(turn.text, maxChars - label.length).map((part) => label + part)
}
