import { chunkDocument } from './chunker/document.ts'
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
// Below this a heading path or speaker label leaves too little room for text.
const MIN_MAX_CHARS = 16

/**
 * Splits text into chunks for embedding, following its structure: markdown sections (each chunk prefixed with its
 * heading path), blank-line paragraphs, lists and code fences, or whole turns for a chat transcript.
 */
export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
	const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS
	const targetChars = Math.min(options.transcriptTargetChars ?? DEFAULT_TRANSCRIPT_TARGET_CHARS, maxChars)
	if (!Number.isInteger(maxChars) || maxChars < MIN_MAX_CHARS) {
		throw new RangeError(`maxChars must be an integer of at least ${MIN_MAX_CHARS}`)
	}
	const normalised = normalise(text)
	if (normalised === '') return []
	const transcript = parseTranscript(normalised)
	const contents = transcript ? chunkTranscript(transcript, maxChars, targetChars) : chunkDocument(normalised, maxChars)
	return contents.map((content, position) => ({ position, content }))
}

/** Chunks packed for the trip back from a worker thread: one string and the lengths copy far faster than objects. */
export interface PackedChunks {
	contents: string
	lengths: Uint32Array
}

/** chunkText, packed (run in a worker thread for long text). */
export function chunkTextPacked(text: string, options: ChunkOptions = {}): PackedChunks {
	const chunks = chunkText(text, options)
	return {
		contents: chunks.map((chunk) => chunk.content).join(''),
		lengths: Uint32Array.from(chunks, (chunk) => chunk.content.length),
	}
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

/** Unix line endings, no trailing whitespace on any line, no blank lines at either end. */
function normalise(text: string): string {
	return text
		.replace(/\r\n?/g, '\n')
		.split('\n')
		.map((line) => line.trimEnd())
		.join('\n')
		.replace(/^\n+/, '')
		.trimEnd()
}
