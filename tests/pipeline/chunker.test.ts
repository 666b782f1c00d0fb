import { describe, expect, it } from 'bun:test'
import { chunkText, chunkTextPacked, unpackChunks } from '../../core/pipeline/chunker.ts'
import { isTranscript, parseTranscript } from '../../core/pipeline/transcript.ts'
import { random } from '../../testkit/text.ts'

const contents = (text: string, maxChars?: number) => chunkText(text, { maxChars }).map((chunk) => chunk.content)
const withoutWhitespace = (text: string) => text.replace(/\s+/g, '')

const WORDS = ['alpha', 'beta', 'naïve', 'café', '日本語', '🙂', 'x', 'memory', 'vector', 'e.g.', 'Dr.', 'Smith', '42']

function sentence(next: () => number, words: number): string {
	const picked = Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]!)
	return `${picked.join(' ')}.`
}

/** A markdown-ish document of headings "Topic N", paragraphs, lists, code fences, giant sentences and long words. */
function generateDocument(seed: number): string {
	const next = random(seed)
	const blocks: string[] = []
	let topic = 0
	for (let i = 0; i < 30; i++) {
		const kind = Math.floor(next() * 7)
		if (kind === 0) blocks.push(`${'#'.repeat(1 + Math.floor(next() * 3))} Topic ${++topic}`)
		else if (kind === 1) blocks.push(['- ', '- ', '1. '].map((marker) => marker + sentence(next, 4)).join('\n'))
		else if (kind === 2) blocks.push(`\`\`\`\nconst a = 1\n\n${sentence(next, 8)}\n\`\`\``)
		else if (kind === 3) blocks.push(sentence(next, 80 + Math.floor(next() * 60)).replace(/\./g, ''))
		else if (kind === 4) blocks.push(`word${'y'.repeat(50 + Math.floor(next() * 150))} end.`)
		else
			blocks.push(Array.from({ length: 1 + Math.floor(next() * 8) }, () => sentence(next, 3 + next() * 20)).join(' '))
	}
	const separator = next() < 0.5 ? '\n\n' : '\r\n\r\n'
	return blocks.join(separator)
}

const HEADING_PATH_LINE = /^Topic \d+(?: > Topic \d+)*$/

describe('chunkText', () => {
	it('returns no chunks for empty or whitespace-only text', () => {
		expect(chunkText('')).toEqual([])
		expect(chunkText(' \n\r\n\t \n')).toEqual([])
	})

	it('numbers chunks from 0 in order', () => {
		const text = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} has some words in it.`).join('\n\n')
		const chunks = chunkText(text, { maxChars: 80 })
		expect(chunks.length).toBeGreaterThan(3)
		expect(chunks.map((chunk) => chunk.position)).toEqual(chunks.map((_, i) => i))
	})

	it('starts a section at each heading and prefixes its chunks with the heading path', () => {
		const text = '# Guide\n\nWelcome to the guide.\n\n## Install\n\nRun the installer.\n\n## Use\n\nCall the API.'
		expect(contents(text)).toEqual([
			'Guide\nWelcome to the guide.',
			'Guide > Install\nRun the installer.',
			'Guide > Use\nCall the API.',
		])
	})

	it('keeps text before the first heading without a prefix', () => {
		expect(contents('Some intro.\n\n# Title\n\nBody.')).toEqual(['Some intro.', 'Title\nBody.'])
	})

	it('prefixes every chunk of a long section with its heading path', () => {
		const text = `## Install\n\n${Array.from({ length: 6 }, (_, i) => `Step ${i} is described here.`).join('\n\n')}`
		const chunks = contents(text, 80)
		expect(chunks.length).toBeGreaterThan(1)
		for (const chunk of chunks) expect(chunk).toStartWith('Install\n')
	})

	it('recognises setext headings and closing hashes', () => {
		const text = 'Guide\n=====\n\nIntro.\n\nInstall\n-------\n\nSteps.\n\n### Notes ###\n\nMore.'
		expect(contents(text)).toEqual(['Guide\nIntro.', 'Guide > Install\nSteps.', 'Guide > Install > Notes\nMore.'])
		expect(contents('# Learn C#\n\nBody.')).toEqual(['Learn C#\nBody.'])
	})

	it('does not take a thematic break, a hashtag or a heading inside a code fence for a heading', () => {
		const text = 'First part.\n\n---\n\n#hashtag here\n\n```md\n# not a heading\n```'
		expect(contents(text)).toEqual([text])
	})

	it('shows a heading without text of its own through its child, or alone when it has no child', () => {
		expect(contents('# Guide\n## Install\nSteps.\n# Empty\n# Last\nEnd.')).toEqual([
			'Guide > Install\nSteps.',
			'Empty',
			'Last\nEnd.',
		])
	})

	it('never lets a chunk span two sections, even when both would fit', () => {
		expect(contents('# A\nOne.\n# B\nTwo.', 1000)).toEqual(['A\nOne.', 'B\nTwo.'])
	})

	it('drops ancestors from a heading path that would be too long, giving a dropped heading a chunk of its own', () => {
		const long = 'Long '.repeat(10).trim()
		const text = `# ${long}\n## Short\nBody.`
		expect(contents(text, 100)).toEqual([long, 'Short\nBody.'])
		expect(contents(text, 1000)).toEqual([`${long} > Short\nBody.`])
	})

	it('keeps a heading too long for the path at the start of its section body', () => {
		const heading = 'A very long heading that goes on and on'
		expect(contents(`# Guide\n## ${heading}\nBody.`, 100)).toEqual([`Guide\n${heading}\n\nBody.`])
	})

	it('packs paragraphs together up to maxChars', () => {
		const paragraph = (i: number) => `Paragraph number ${i} is exactly.`
		const text = Array.from({ length: 7 }, (_, i) => paragraph(i)).join('\n\n')
		expect(paragraph(0)).toHaveLength(30)
		// Three paragraphs and two blank-line separators make 94 characters; a fourth would make 126.
		expect(contents(text, 100)).toEqual([
			[0, 1, 2].map(paragraph).join('\n\n'),
			[3, 4, 5].map(paragraph).join('\n\n'),
			paragraph(6),
		])
	})

	it('splits a paragraph longer than maxChars at sentence boundaries', () => {
		const sentences = Array.from({ length: 10 }, (_, i) => `This is sentence number ${i} of the paragraph.`)
		const chunks = contents(sentences.join(' '), 120)
		expect(chunks.length).toBeGreaterThan(3)
		for (const chunk of chunks) {
			expect(chunk.length).toBeLessThanOrEqual(120)
			expect(chunk).toMatch(/^This is sentence number \d.*\.$/)
		}
		expect(chunks.join(' ')).toBe(sentences.join(' '))
	})

	it('does not end a sentence at "Dr." or "e.g."', () => {
		const text = 'Dr. Smith met Mr. Jones at noon. They used tools, e.g. a hammer and a saw. It went well.'
		expect(contents(text, 45)).toEqual([
			'Dr. Smith met Mr. Jones at noon.',
			'They used tools, e.g. a hammer and a saw.',
			'It went well.',
		])
	})

	it('splits a sentence longer than maxChars at word boundaries', () => {
		const words = Array.from({ length: 60 }, (_, i) => `word${i}`)
		const chunks = contents(`${words.join(' ')}.`, 50)
		expect(chunks.length).toBeGreaterThan(5)
		for (const chunk of chunks) {
			expect(chunk.length).toBeLessThanOrEqual(50)
			for (const word of chunk.replace(/\.$/, '').split(' ')) expect(words).toContain(word)
		}
	})

	it('packs chunks across the windows a very long paragraph is split in, losing no text', () => {
		// 400 KB of sentences on soft-wrapped lines: one paragraph, split a window (64 KiB) at a time.
		const sentences = Array.from({ length: 5_000 }, (_, i) => `Sentence ${i} tells of the river and the stone.`)
		const text = sentences.map((sentence, i) => (i % 2 === 1 ? `${sentence}\n` : `${sentence} `)).join('')
		const chunks = contents(text)
		expect(chunks.join('')).not.toBe('')
		expect(withoutWhitespace(chunks.join(''))).toBe(withoutWhitespace(text))
		for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(1000)
		// Packed to the limit everywhere, also where a window was cut: no chunk but the last is short.
		for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThan(900)
		// Whole sentences, also across the cuts.
		for (const chunk of chunks) expect(chunk).toMatch(/^Sentence \d+ .*stone\.$/s)
	})

	it('packs chunks for a worker thread and unpacks them as they were', () => {
		const text = `# Title\n\n${'Some words here. '.repeat(500)}\n\n## Part\n\nÜnïcödé 🚀 text.`
		expect(unpackChunks(chunkTextPacked(text))).toEqual(chunkText(text))
	})

	it('cuts a word longer than maxChars between whole graphemes', () => {
		const word = '👩‍💻'.repeat(30)
		const chunks = contents(word, 20)
		expect(chunks.length).toBeGreaterThan(1)
		for (const chunk of chunks) {
			expect(chunk.length).toBeLessThanOrEqual(20)
			expect(chunk).toMatch(/^(?:👩‍💻)+$/u)
		}
		expect(chunks.join('')).toBe(word)
	})

	it('keeps a code fence whole, starting a new chunk when it does not fit beside the text before it', () => {
		const before = 'Some words before the code. Some words before the code.'
		const code = '```ts\nconst a = 1\n\nconst b = 2\n```'
		expect(contents(`${before}\n\n${code}\n\nAfter.`, 60)).toEqual([before, `${code}\n\nAfter.`])
	})

	it('splits a code fence longer than maxChars between lines', () => {
		const lines = Array.from({ length: 20 }, (_, i) => `line ${i} of code`)
		const chunks = contents(['```', ...lines, '```'].join('\n'), 60)
		expect(chunks.length).toBeGreaterThan(1)
		for (const chunk of chunks) for (const line of chunk.split('\n')) expect(['```', ...lines]).toContain(line)
	})

	it('keeps a list whole when it fits', () => {
		const list = '- first item\n- second item\n\n  more of the second\n- third item'
		const text = `Intro paragraph that takes room.\n\n${list}`
		expect(contents(text, 80)).toEqual(['Intro paragraph that takes room.', list])
	})

	it('normalizes line endings and trailing whitespace and keeps Unicode intact', () => {
		expect(contents('# Café  \r\n\r\nnaïve 日本語 🙂  \r\nsecond line\t\r\n')).toEqual([
			'Café\nnaïve 日本語 🙂\nsecond line',
		])
	})

	it('rejects a maxChars too small to hold a heading path and text', () => {
		expect(() => chunkText('text', { maxChars: 8 })).toThrow(RangeError)
		expect(() => chunkText('text', { maxChars: 100.5 })).toThrow(RangeError)
	})

	it('loses no text and respects maxChars on generated documents', () => {
		for (const seed of [1, 2, 3, 4, 5, 6]) {
			const text = generateDocument(seed)
			for (const maxChars of [40, 120, 1000]) {
				const chunks = chunkText(text, { maxChars })
				const headings = text.split(/\r?\n/).filter((line) => line.startsWith('#'))
				const pathLines = new Set<string>()
				const bodies = chunks.map(({ content }) => {
					expect(content.trim()).not.toBe('')
					expect(content.length).toBeLessThanOrEqual(maxChars)
					const [first, ...rest] = content.split('\n')
					if (!HEADING_PATH_LINE.test(first!)) return content
					pathLines.add(first!)
					return rest.join('\n')
				})
				const expected = text
					.split(/\r?\n/)
					.filter((line) => !line.startsWith('#'))
					.join('\n')
				expect(withoutWhitespace(bodies.join(''))).toBe(withoutWhitespace(expected))
				const shownHeadings = [...pathLines].flatMap((line) => line.split(' > '))
				for (const heading of headings) expect(shownHeadings).toContain(heading.replace(/^#+ /, ''))
				expect(chunks.map((chunk) => chunk.position)).toEqual(chunks.map((_, i) => i))
			}
		}
	})
})

describe('chunkText on transcripts', () => {
	const turn = (i: number) => `${i % 2 === 0 ? 'User' : 'Assistant'}: message ${i} ${'blah '.repeat(i % 7)}`.trim()

	it('packs whole turns up to the transcript target and never splits one', () => {
		const turns = Array.from({ length: 40 }, (_, i) => `${turn(i)}\n${i % 3 === 0 ? 'a continuation line' : ''}`.trim())
		const chunks = contents(turns.join('\n'), 1000)
		expect(chunks.length).toBeGreaterThan(2)
		for (const chunk of chunks) {
			expect(chunk.length).toBeLessThanOrEqual(600)
			expect(chunk.split('\n').filter((line) => /^(User|Assistant): /.test(line)).length).toBeGreaterThan(3)
		}
		expect(chunks.join('\n')).toBe(turns.join('\n'))
	})

	it('honours a custom transcript target', () => {
		const turns = Array.from({ length: 10 }, (_, i) => turn(i))
		const chunks = chunkText(turns.join('\n'), { transcriptTargetChars: 100 }).map((chunk) => chunk.content)
		for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(100)
		expect(chunks.join('\n')).toBe(turns.join('\n'))
	})

	it('keeps a turn longer than the target but within maxChars whole, in a chunk of its own', () => {
		const long = `Assistant: ${'a long answer '.repeat(60).trim()}`
		const text = `User: question\n${long}\nUser: thanks`
		expect(long.length).toBeGreaterThan(600)
		expect(contents(text, 1000)).toEqual(['User: question', long, 'User: thanks'])
	})

	it('splits a turn longer than maxChars and repeats the speaker on each piece', () => {
		const sentences = Array.from({ length: 12 }, (_, i) => `Point ${i} matters.`)
		const chunks = contents(`User: hi\nAssistant: ${sentences.join(' ')}`, 60)
		expect(chunks[0]).toBe('User: hi')
		const pieces = chunks.slice(1)
		expect(pieces.length).toBeGreaterThan(2)
		for (const piece of pieces) {
			expect(piece.length).toBeLessThanOrEqual(60)
			expect(piece).toStartWith('Assistant: Point ')
		}
		expect(pieces.map((piece) => piece.slice('Assistant: '.length)).join(' ')).toBe(sentences.join(' '))
	})

	it('keeps the preamble with the first turn', () => {
		const text = '[date: 2023-05-08]\nSession 3\nAlice: hi Bob\nBob: hi Alice\nAlice: how are you?'
		// The preamble and first turn make 42 characters: over the target, within maxChars.
		const chunks = chunkText(text, { maxChars: 50, transcriptTargetChars: 30 }).map((chunk) => chunk.content)
		expect(chunks[0]).toBe('[date: 2023-05-08]\nSession 3\nAlice: hi Bob')
		expect(chunks.join('\n')).toBe(text)
	})
})

describe('parseTranscript', () => {
	it('reads turns, their continuation lines and the preamble', () => {
		const text = '[date: 2023-05-08]\r\n\r\nuser: hello\r\nAssistant: line one\r\nline two\r\n\r\nSpeaker 2: bye'
		expect(parseTranscript(text)).toEqual({
			preamble: '[date: 2023-05-08]',
			turns: [
				{ speaker: 'user', text: 'hello' },
				{ speaker: 'Assistant', text: 'line one\nline two' },
				{ speaker: 'Speaker 2', text: 'bye' },
			],
		})
	})

	it('accepts names of one to three capitalised words and rejects longer or lowercase ones', () => {
		expect(isTranscript('Mary Ann Lee: hi\nJosé: hello\nMary Ann Lee: bye')).toBe(true)
		expect(isTranscript('One Two Three Four: hi\nOne Two Three Four: hello')).toBe(false)
		expect(isTranscript('note: hi\nnote: hello')).toBe(false)
		const longName = `A${'b'.repeat(40)}`
		expect(isTranscript(`${longName}: hi\n${longName}: hello`)).toBe(false)
	})

	it('is not fooled by prose with one "Note: x" line', () => {
		const text = 'This is a paragraph of prose.\nIt has several lines.\nNote: this one looks like a turn.\nThe end.'
		expect(parseTranscript(text)).toBeNull()
	})

	it('does not take a URL for a speaker', () => {
		expect(isTranscript('http://example.com\nhttps://example.org/path\nHttp://x')).toBe(false)
	})

	it('needs more than half of the lines to be turns', () => {
		expect(isTranscript('User: a\nAssistant: b\nplain line\nplain line')).toBe(false)
		expect(isTranscript('User: a\nAssistant: b\nplain line')).toBe(true)
	})

	it('does not take a block of fields with distinct names for a conversation', () => {
		expect(isTranscript('Title: Moby Dick\nAuthor: Herman Melville\nYear: 1851')).toBe(false)
		expect(isTranscript('Alice: hi\nBob: hello\nAlice: bye')).toBe(true)
		expect(isTranscript('user: hi\nassistant: hello')).toBe(true)
	})

	it('takes a two-message exchange between named people for a conversation, but not a record of fields', () => {
		expect(isTranscript("Caroline: I went to the LGBTQ support group yesterday.\nMelanie: Wow, that's awesome!")).toBe(
			true,
		)
		expect(isTranscript('Jon Park: Are we still meeting at the cafe tomorrow\nDana: Yes, see you at nine')).toBe(true)
		expect(isTranscript('Project: Apollo\nOwner: Dana Smith')).toBe(false)
		expect(isTranscript('Subject: The quarterly numbers are in.\nFrom: Dana Smith <dana@example.com>')).toBe(false)
		expect(isTranscript('Description: The service handles payments.\nSummary: It is fast.')).toBe(false)
		expect(
			isTranscript('Step One: Open the box.\nStep Two: Plug the device in.\nStep Three: Wait for the green light.'),
		).toBe(false)
	})

	it('needs at least two turns', () => {
		expect(isTranscript('User: hello')).toBe(false)
	})
})
