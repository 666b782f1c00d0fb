/**
 * Deterministic English-like text for seeding and load. Words are drawn from a real vocabulary by Zipf's law
 * (p ∝ 1/rank), the distribution of natural text, so full-text and vector search see realistic term frequencies;
 * the same seed gives the same corpus on every run.
 */

const NAMES =
	'Alice Bruno Carla Deepak Elena Farid Grace Hiro Ines Jonas Kemal Lena Marco Nadia Oscar Priya Quinn Rosa Samir Tara'.split(
		' ',
	)
/** Query words skip the most frequent ranks (function words a full-text query drops anyway). */
const QUERY_MIN_RANK = 150

/** mulberry32: a small, fast, seedable generator. */
export function random(seed: number): () => number {
	let state = seed >>> 0
	return () => {
		state = (state + 0x6d2b79f5) >>> 0
		let t = state
		t = Math.imul(t ^ (t >>> 15), t | 1)
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296
	}
}

/** Cumulative Zipf weights over ranks `from`..`words.length`. */
function zipfTable(size: number, from: number): Float64Array {
	const table = new Float64Array(size - from)
	let total = 0
	for (let i = from; i < size; i++) {
		total += 1 / (i + 1)
		table[i - from] = total
	}
	for (let i = 0; i < table.length; i++) table[i]! /= total
	return table
}

export class TextGenerator {
	private readonly next: () => number
	private readonly all: Float64Array
	private readonly content: Float64Array

	constructor(
		seed: number,
		private readonly words: string[],
	) {
		this.next = random(seed)
		this.all = zipfTable(words.length, 0)
		this.content = zipfTable(words.length, QUERY_MIN_RANK)
	}

	private draw(table: Float64Array, offset: number): string {
		const target = this.next()
		let low = 0
		let high = table.length - 1
		while (low < high) {
			const mid = (low + high) >> 1
			if (table[mid]! < target) low = mid + 1
			else high = mid
		}
		return this.words[low + offset]!
	}

	pick<T>(list: readonly T[]): T {
		return list[Math.floor(this.next() * list.length)]!
	}

	/** 8 to 20 words, capitalised, with a full stop. */
	sentence(): string {
		const length = 8 + Math.floor(this.next() * 13)
		const words = Array.from({ length }, () => this.draw(this.all, 0))
		const text = words.join(' ')
		return `${text[0]!.toUpperCase()}${text.slice(1)}.`
	}

	/** Prose of about `bytes` characters in paragraphs of four sentences. */
	prose(bytes: number): string {
		const paragraphs: string[] = []
		let length = 0
		while (length < bytes) {
			const paragraph = Array.from({ length: 4 }, () => this.sentence()).join(' ')
			paragraphs.push(paragraph)
			length += paragraph.length + 2
		}
		return paragraphs.join('\n\n')
	}

	/** A two-person chat of about `bytes` characters, as `Speaker: text` lines. */
	chat(bytes: number): string {
		const first = this.pick(NAMES)
		const second = this.pick(NAMES.filter((name) => name !== first))
		const lines: string[] = []
		let length = 0
		while (length < bytes) {
			const line = `${lines.length % 2 === 0 ? first : second}: ${this.sentence()} ${this.sentence()}`
			lines.push(line)
			length += line.length + 1
		}
		return lines.join('\n')
	}

	/** A search query of 2 to 4 content words. */
	query(): string {
		const length = 2 + Math.floor(this.next() * 3)
		return Array.from({ length }, () => this.draw(this.content, QUERY_MIN_RANK)).join(' ')
	}

	/** A fact-like memory sentence about a person. */
	memory(): string {
		const words = Array.from({ length: 6 + Math.floor(this.next() * 6) }, () => this.draw(this.all, 0))
		return `${this.pick(NAMES)} ${words.join(' ')}.`
	}
}
