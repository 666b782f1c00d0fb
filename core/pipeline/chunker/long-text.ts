/**
 * Chunking a text too long to hold as lines at once, a bounded piece at a time (see pieces.ts and cuts.ts). Chunks
 * are those of the whole text except where a paragraph or a pack of turns meets a cut; every chunk of a section
 * still starts with its heading path, carried from piece to piece. The chunks come out a piece at a time, so the
 * caller can pack them before the next piece is read.
 */
import { readTranscriptPiece, TranscriptTally } from '../transcript.ts'
import { documentCut, lineCut, transcriptCut } from './cuts.ts'
import { chunkDocumentPiece } from './document.ts'
import { textPieces } from './pieces.ts'
import type { OpenHeading } from './sections.ts'
import { chunkTranscript } from './transcript-chunks.ts'

export function chunkLongText(
	text: string,
	maxChars: number,
	targetChars: number,
	pieceChars: number,
): Generator<string[]> {
	return isLongTranscript(text, pieceChars)
		? chunkLongTranscript(text, maxChars, targetChars, pieceChars)
		: chunkLongDocument(text, maxChars, pieceChars)
}

function isLongTranscript(text: string, pieceChars: number): boolean {
	const tally = new TranscriptTally()
	const collect = garbageCollector()
	for (const piece of textPieces(text, pieceChars, lineCut)) {
		tally.add(piece)
		collect(piece.length)
	}
	return tally.isTranscript()
}

function* chunkLongDocument(text: string, maxChars: number, pieceChars: number): Generator<string[]> {
	let open: OpenHeading[] = []
	const collect = garbageCollector()
	for (const piece of textPieces(text, pieceChars, documentCut)) {
		const done = chunkDocumentPiece(piece, maxChars, open)
		open = done.open
		yield done.chunks
		collect(piece.length)
	}
}

function* chunkLongTranscript(
	text: string,
	maxChars: number,
	targetChars: number,
	pieceChars: number,
): Generator<string[]> {
	let speaker: string | undefined
	const collect = garbageCollector()
	for (const piece of textPieces(text, pieceChars, transcriptCut)) {
		const transcript = readTranscriptPiece(piece, speaker)
		speaker = transcript.speaker
		yield chunkTranscript(transcript, maxChars, targetChars)
		collect(piece.length)
	}
}

const COLLECT_EVERY_CHARS = 4_000_000

/**
 * A full collection after each 4 million characters of pieces: left to itself the collector lets the pieces' garbage
 * pile up (measurements: docs/measurements.md).
 */
function garbageCollector(): (pieceChars: number) => void {
	let since = 0
	return (pieceChars) => {
		since += pieceChars
		if (since < COLLECT_EVERY_CHARS) return
		since = 0
		Bun.gc(true)
	}
}
