import { chunkDocument } from './chunker/document.ts'
import { chunkLongText } from './chunker/long-text.ts'
import { normalize } from './chunker/normalize.ts'
import { chunkTranscript } from './chunker/transcript-chunks.ts'
import { parseTranscript } from './transcript.ts'

export interface ChunkOptions {
	/** The longest chunk, in UTF-16 code units (string length). Default 1000. */
	maxChars?: number
	/** How far consecutive chat turns are packed into one chunk. Default 600, never more than maxChars. */
	transcriptTargetChars?: number
}

export interface TextChunk {
	position: number
	content: string
}

const DEFAULT_MAX_CHARS = 1000
const DEFAULT_TRANSCRIPT_TARGET_CHARS = 600
/** Text longer than this is chunked a piece of about this length at a time (see chunker/long-text.ts). */
export const PIECE_CHARS = 2_000_000
// Below this a heading path or speaker label leaves too little room for text.
const MIN_MAX_CHARS = 16

/**
 * Splits text into chunks for embedding, following its structure: markdown sections (each chunk prefixed with its
 * heading path), blank-line paragraphs, lists and code fences, or whole turns for a chat transcript.
 */
export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
	return chunkTextInPieces(text, options, PIECE_CHARS)
}

/** chunkText with the piece length a parameter, so tests can cut short texts into pieces. */
export function chunkTextInPieces(text: string, options: ChunkOptions, pieceChars: number): TextChunk[] {
	const chunks: TextChunk[] = []
	for (const contents of chunkContents(text, options, pieceChars))
		for (const content of contents) chunks.push({ position: chunks.length, content })
	return chunks
}

/** The chunks' contents, a piece of the text at a time (all at once for text up to one piece long). */
function* chunkContents(text: string, options: ChunkOptions, pieceChars: number): Generator<string[]> {
	const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS
	const targetChars = Math.min(options.transcriptTargetChars ?? DEFAULT_TRANSCRIPT_TARGET_CHARS, maxChars)
	if (!Number.isInteger(maxChars) || maxChars < MIN_MAX_CHARS) {
		throw new RangeError(`maxChars must be an integer of at least ${MIN_MAX_CHARS}`)
	}
	if (text.length > pieceChars) {
		yield* chunkLongText(text, maxChars, targetChars, pieceChars)
		return
	}
	const normalized = normalize(text)
	if (normalized === '') return
	const transcript = parseTranscript(normalized)
	const contents = transcript ? chunkTranscript(transcript, maxChars, targetChars) : chunkDocument(normalized, maxChars)
	yield contents
}

/** Chunks packed for the trip back from a worker thread: one string and the lengths copy far faster than objects. */
export interface PackedChunks {
	contents: string
	lengths: Uint32Array
}

/** chunkText, packed (run in a worker thread for long text). */
export function chunkTextPacked(text: string, options: ChunkOptions = {}, pieceChars = PIECE_CHARS): PackedChunks {
	// Each piece's chunks are joined at once: a flat copy, where the chunks themselves would keep the piece alive.
	const joined: string[] = []
	const lengths: number[] = []
	for (const contents of chunkContents(text, options, pieceChars)) {
		joined.push(contents.join(''))
		for (const content of contents) lengths.push(content.length)
	}
	return { contents: joined.join(''), lengths: Uint32Array.from(lengths) }
}

export function unpackChunks({ contents, lengths }: PackedChunks): TextChunk[] {
	const chunks: TextChunk[] = []
	let offset = 0
	for (const length of lengths) {
		chunks.push({ position: chunks.length, content: contents.slice(offset, offset + length) })
		offset += length
	}
	return chunks
}
