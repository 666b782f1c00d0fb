import { describe, expect, it } from 'bun:test'
import { documentCut, lineCut } from '../../core/pipeline/chunker/cuts.ts'
import { textPieces } from '../../core/pipeline/chunker/pieces.ts'
import { chunkText, chunkTextInPieces, chunkTextPacked, unpackChunks } from '../../core/pipeline/chunker.ts'
import { parseTranscript, TranscriptTally } from '../../core/pipeline/transcript.ts'
import { random } from '../../testkit/text.ts'

const inPieces = (text: string, pieceChars: number, maxChars = 200) =>
	chunkTextInPieces(text, { maxChars }, pieceChars).map((chunk) => chunk.content)
const whole = (text: string, maxChars = 200) => chunkText(text, { maxChars }).map((chunk) => chunk.content)
const withoutWhitespace = (text: string) => text.replace(/\s+/g, '')

const WORDS = ['alpha', 'beta', 'naïve', 'café', '日本語', '🙂', 'memory', 'vector', 'e.g.', 'Dr.', 'Smith', '42']

function sentence(next: () => number, words: number): string {
	return `${Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(' ')}.`
}

/** Markdown of headings "Topic N" (each followed by text), paragraphs, lists and code fences with blank lines. */
function generateMarkdown(seed: number, blocks: number): string {
	const next = random(seed)
	const parts: string[] = []
	let topic = 0
	for (let i = 0; i < blocks; i++) {
		const kind = Math.floor(next() * 6)
		if (kind === 0) parts.push(`${'#'.repeat(1 + Math.floor(next() * 3))} Topic ${++topic}\n\n${sentence(next, 6)}`)
		else if (kind === 1) parts.push(['- ', '- ', '1. '].map((marker) => marker + sentence(next, 4)).join('\n'))
		else if (kind === 2) parts.push(`\`\`\`\ncode ${i}\n\n# inside ${i}\n\n${sentence(next, 8)}\n\`\`\``)
		else parts.push(Array.from({ length: 1 + Math.floor(next() * 6) }, () => sentence(next, 3 + next() * 20)).join(' '))
	}
	return parts.join(next() < 0.5 ? '\n\n' : '\r\n\r\n')
}

const HEADING_PATH_LINE = /^Topic \d+(?: > Topic \d+)*$/
const HEADING_LINE = /^#{1,3} Topic \d+$/

/** The chunks' text without their heading-path lines, and the text without its heading lines, both without whitespace. */
function bodies(chunks: string[], text: string): { chunked: string; source: string } {
	const chunked = chunks.map((chunk) => {
		const [first, ...rest] = chunk.split('\n')
		return HEADING_PATH_LINE.test(first!) ? rest.join('\n') : chunk
	})
	const source = text.split(/\r?\n/).filter((line) => !HEADING_LINE.test(line))
	return { chunked: withoutWhitespace(chunked.join('')), source: withoutWhitespace(source.join('')) }
}

/** The heading path each heading line of the text implies, by position: what every chunk under it must start with. */
function headingPaths(text: string): string[] {
	const stack: { level: number; title: string }[] = []
	const paths: string[] = []
	let fenced = false
	for (const line of text.split(/\r?\n/)) {
		if (line.startsWith('```')) fenced = !fenced
		const heading = fenced ? null : /^(#{1,3}) (Topic \d+)$/.exec(line)
		if (!heading) continue
		while (stack.length > 0 && stack.at(-1)!.level >= heading[1]!.length) stack.pop()
		stack.push({ level: heading[1]!.length, title: heading[2]! })
		paths.push(stack.map((entry) => entry.title).join(' > '))
	}
	return paths
}

describe('chunkText on text longer than a piece', () => {
	it('gives the same chunks as today for text up to one piece long', () => {
		for (const seed of [1, 2, 3]) {
			const text = generateMarkdown(seed, 40)
			expect(inPieces(text, text.length)).toEqual(whole(text))
		}
		expect(chunkText('# Guide\n\nWelcome.\n\n## Install\n\nRun it.').map((chunk) => chunk.content)).toEqual([
			'Guide\nWelcome.',
			'Guide > Install\nRun it.',
		])
	})

	it('gives the same chunks as the whole text when every cut falls at a heading', () => {
		const sections = Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\nShort paragraph ${i}.\n\nAnother one.`)
		const text = `# Book\n\n${sections.join('\n\n')}`
		expect(inPieces(text, 300)).toEqual(whole(text))
	})

	it('loses and duplicates no text, and keeps chunks within maxChars, at any piece length', () => {
		for (const seed of [11, 12, 13, 14]) {
			const text = generateMarkdown(seed, 120)
			for (const pieceChars of [200, 700, 2500]) {
				const chunks = inPieces(text, pieceChars, 150)
				for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(150)
				const { chunked, source } = bodies(chunks, text)
				expect(chunked).toBe(source)
			}
		}
	})

	it('starts every chunk under a heading with its heading path, across cuts', () => {
		const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} of the install section, with words.`)
		const text = `# Guide\n\n## Install\n\n${paragraphs.join('\n\n')}\n\n# Other\n\nThe end.`
		const chunks = inPieces(text, 400, 120)
		expect(chunks.length).toBeGreaterThan(10)
		for (const chunk of chunks.slice(0, -1)) expect(chunk).toStartWith('Guide > Install\n')
		expect(chunks.at(-1)).toBe('Other\nThe end.')
		for (const seed of [21, 22]) {
			const generated = generateMarkdown(seed, 150)
			const paths = new Set(headingPaths(generated))
			for (const chunk of inPieces(generated, 500, 150)) {
				const first = chunk.split('\n')[0]!
				if (HEADING_PATH_LINE.test(first)) expect(paths).toContain(first)
			}
		}
	})

	it('never takes a heading inside a code fence for one, even when the fence is longer than a piece', () => {
		const code = Array.from({ length: 80 }, (_, i) => `# comment ${i}\n\nstatement(${i})`).join('\n')
		const text = `# Script\n\nIntro.\n\n\`\`\`sh\n${code}\n\`\`\`\n\nAfter the code.`
		const chunks = inPieces(text, 500, 200)
		for (const chunk of chunks) expect(chunk).toStartWith('Script\n')
		// The fence's marker goes on with the code into the next piece; it is markup, like a heading path.
		const chunked = chunks.map((chunk) => chunk.slice('Script\n'.length).replaceAll('```', '')).join('')
		expect(withoutWhitespace(chunked)).toBe(withoutWhitespace(`Intro.sh${code}After the code.`))
	})

	it('does not cut inside a code fence that fits in half a piece', () => {
		const fence = '```\nfirst();\n\nsecond();\n\nthird();\n```'
		const paragraph = (i: number) => `Paragraph ${i} is here.`
		const text = Array.from({ length: 30 }, (_, i) => (i % 5 === 4 ? fence : paragraph(i))).join('\n\n')
		for (const pieceChars of [150, 200, 260]) {
			const chunked = inPieces(text, pieceChars, 1000).join('\n')
			expect(chunked.split('second();')).toHaveLength(7)
			expect(chunked.split(fence)).toHaveLength(7)
		}
	})

	it('cuts a piece at a heading, else after a blank line, outside fences', () => {
		const head = `${'Some words here.\n'.repeat(10)}\n`
		expect(documentCut(`${head}More.\n\n## Next\nText.\nTail.\n`)).toEqual({ at: head.length + 7 })
		expect(documentCut(`${head}More.\n\nText.\nTail.\n`)).toEqual({ at: head.length + 7 })
		const fenced = `${head}\`\`\`\n# not a heading\n\ncode\n`
		expect(documentCut(fenced)).toEqual({ at: head.length })
		const openFence = `\`\`\`\n${'code\n\n'.repeat(20)}`
		expect(documentCut(openFence)).toEqual({ at: openFence.length, carry: '```\n' })
	})

	it('reads line endings and trailing whitespace the same across cuts', () => {
		const lines = Array.from({ length: 300 }, (_, i) => `Line ${i} has words   `)
		for (const ending of ['\r\n', '\r', '\n']) {
			const text = lines.join(ending)
			const chunks = inPieces(text, 97, 120)
			for (const chunk of chunks) expect(chunk).not.toMatch(/[\r]| \n| $/)
			expect(withoutWhitespace(chunks.join(''))).toBe(withoutWhitespace(text))
		}
	})

	it('cuts a line longer than a piece at a space, or between code points when it has none', () => {
		const words = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ')
		const chunks = inPieces(words, 1000, 100)
		expect(chunks.join(' ')).toBe(words)
		const emoji = '🙂'.repeat(3000)
		const cut = inPieces(emoji, 999, 100)
		expect(cut.join('')).toBe(emoji)
		for (const chunk of cut) expect(chunk).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/)
	})

	it('packs the chunks of a long text for a worker thread as chunkText gives them', () => {
		const text = generateMarkdown(31, 200)
		expect(unpackChunks(chunkTextPacked(text, { maxChars: 150 }, 600))).toEqual(
			chunkTextInPieces(text, { maxChars: 150 }, 600),
		)
	})

	it('returns no chunks for long whitespace', () => {
		expect(inPieces(' \n\r\n\t \n'.repeat(100), 50)).toEqual([])
	})
})

describe('chunkText on a transcript longer than a piece', () => {
	const turns = Array.from({ length: 200 }, (_, i) =>
		i % 2 === 0 ? `Alice: Question number ${i} is this one?` : `Bob: Answer ${i}, which is longer than the question.`,
	)

	it('chunks it as a transcript, whole turns packed, none lost or repeated', () => {
		const text = `[date: 2024-01-01]\n${turns.join('\n')}`
		const chunks = inPieces(text, 1000, 300)
		expect(chunks[0]).toStartWith('[date: 2024-01-01]\nAlice: Question number 0')
		const chunkedTurns = chunks.flatMap((chunk) => chunk.split('\n')).filter((line) => !line.startsWith('['))
		expect(chunkedTurns).toEqual(turns)
	})

	it('repeats the speaker where a turn longer than a piece goes on in the next one', () => {
		const long = Array.from({ length: 40 }, (_, i) => `Line ${i} of a long answer.`).join('\n')
		const before = Array.from({ length: 30 }, (_, i) => `User: Question ${i}?\nAssistant: Answer ${i}.`)
		const after = Array.from({ length: 30 }, (_, i) => `User: More ${i}?\nAssistant: Yes ${i}.`)
		const text = `${before.join('\n')}\nUser: Tell me everything.\nAssistant: ${long}\n${after.join('\n')}\nUser: Thanks.`
		expect(parseTranscript(text)).not.toBeNull()
		// The long turn (about 1,100 characters) cannot fit in a piece of 800: it is cut inside.
		const chunks = inPieces(text, 800, 300)
		expect(chunks[0]).toStartWith('User: Question 0?')
		expect(chunks.at(-1)).toEndWith('User: Thanks.')
		for (const chunk of chunks) expect(chunk).toMatch(/^(User|Assistant): /)
		const spoken = chunks.map((chunk) => chunk.replace(/^(User|Assistant): /gm, '')).join('\n')
		expect(withoutWhitespace(spoken)).toBe(withoutWhitespace(text.replace(/^(User|Assistant): /gm, '')))
	})

	it('decides a text is a transcript, a piece at a time, exactly as parseTranscript does on the whole', () => {
		const prose = Array.from({ length: 60 }, (_, i) => `Prose line ${i} goes on.`)
		const texts = [
			turns.join('\n'),
			[...turns.slice(0, 50), ...prose].join('\n'),
			[...turns.slice(0, 70), ...prose].join('\n'),
			`Alice: ${'hello '.repeat(100)}there.\nBob: ${'fine '.repeat(100)}thanks.`,
			`Alice: Hello there, how are you?\n${'more\n'.repeat(40)}Bob: Fine.`,
			`Title: ${'x '.repeat(500)}\nAuthor: someone who wrote it down`,
			`Note: one line\n${prose.join('\n')}`,
			`${prose.join('\n')}\nUser: hi\nAssistant: hello`,
		]
		for (const text of texts) {
			const tally = new TranscriptTally()
			for (const piece of textPieces(text, 300, lineCut)) tally.add(piece)
			expect(tally.isTranscript()).toBe(parseTranscript(text) !== null)
		}
		expect(texts.map((text) => parseTranscript(text) !== null)).toEqual([
			true,
			false,
			true,
			true,
			false,
			false,
			false,
			false,
		])
	})
})
