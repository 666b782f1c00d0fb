import { describe, expect, it } from 'bun:test'
import type { ExtractionInput } from '../../core/index.ts'
import { storedContentKey } from '../../core/memory/normalize.ts'
import {
	capTokens,
	loadAnalyser,
	MAX_SENTENCE_TOKENS,
	MAX_TOKEN_CHARS,
	pieces,
} from '../../plugins/extractor-rules/nlp.ts'
import { extractStatements } from '../../plugins/extractor-rules/statements.ts'

const input = (text: string): ExtractionInput => ({
	documentId: 'd',
	containerTag: 'c',
	text,
	turns: null,
	date: null,
	entityContext: null,
	chunks: [],
})
const options = { includeAssistantTurns: false, maxJoinedChars: 300 }

describe('extractor-rules input bounds', () => {
	it('cuts runs of non-space characters longer than a word can be', () => {
		const capped = capTokens(`short ${'A'.repeat(200)} end`)
		expect(capped.split(' ').every((word) => word.length <= MAX_TOKEN_CHARS)).toBe(true)
		expect(capped.replaceAll(' ', '')).toBe(`short${'A'.repeat(200)}end`)
		expect(capTokens('Marie moved to Lisbon.')).toBe('Marie moved to Lisbon.')
	})

	it('reads long text in pieces cut at sentence ends, losing nothing', () => {
		const text = Array.from({ length: 400 }, (_, i) => `Sentence number ${i} ends here.`).join(' ')
		const parts = pieces(text, 1000)
		expect(parts.length).toBeGreaterThan(10)
		expect(parts.join('')).toBe(text)
		for (const part of parts) expect(part.length).toBeLessThanOrEqual(1000)
		for (const part of parts.slice(0, -1)) expect(part.trimEnd().endsWith('.')).toBe(true)
	})

	it('analyses a 1 MB word and an 80 KB one in bounded time (the abbreviation check was quadratic)', () => {
		const analyse = loadAnalyser()
		const started = performance.now()
		const sentences = analyse('A'.repeat(1_048_576))
		analyse(`${'x'.repeat(80_000)} and more`)
		// Unbounded, the 1 MB word took about half an hour; 20 s only proves it does not hang.
		expect(performance.now() - started).toBeLessThan(20_000)
		expect(sentences.length).toBeGreaterThan(0)
		for (const sentence of sentences) expect(sentence.tokens.length).toBeLessThanOrEqual(MAX_SENTENCE_TOKENS)
	}, 30_000)

	it('extracts 5 MB of text without punctuation (no stack overflow)', () => {
		const words = ['apple', 'river', 'stone', 'green', 'market', 'window', 'silver', 'garden', 'Lisbon', 'maria']
		const parts: string[] = []
		let length = 0
		for (let i = 0; length < 5_000_000; i++) {
			const word = words[(i * 7 + (i >> 3)) % words.length]!
			parts.push(word)
			length += word.length + 1
		}
		const candidates = extractStatements(input(parts.join(' ')), loadAnalyser(), options)
		expect(Array.isArray(candidates)).toBe(true)
		for (const candidate of candidates) expect(candidate.content.length).toBeLessThan(2_000)
	}, 60_000)
})

describe('stored content keys', () => {
	it('keep long statements under the index entry limit, still one key per content', () => {
		const long = 'word '.repeat(2_000)
		const key = storedContentKey(long)
		expect(Buffer.byteLength(key)).toBeLessThanOrEqual(2_704)
		expect(storedContentKey(`${long} more`)).not.toBe(key)
		expect(storedContentKey(long.toUpperCase())).toBe(key)
		expect(storedContentKey('Alex lives in Boston!')).toBe('alex lives in boston')
		expect(Buffer.byteLength(storedContentKey('語'.repeat(5_000)))).toBeLessThanOrEqual(2_704)
	})
})
