import { createHash } from 'node:crypto'

/** Text keys that decide when two statements are the same, independent of the embedder. */

const STOPWORDS = new Set(
	(
		'a an the and or but of to in on at by for with from as is are was were be been being am do does did has have had ' +
		'it its this that these those there here he she they them his her their him i me my we our you your who whom ' +
		'which what when where why how not no so than then too very just also now still about into over after before'
	).split(' '),
)

/** Lower case, letters and digits only, single spaces: "Alex lives in Boston!" → "alex lives in boston". */
export function contentKey(text: string): string {
	return text
		.normalize('NFKC')
		.toLowerCase()
		.replace(/[^\p{L}\p{N}]+/gu, ' ')
		.trim()
}

/**
 * Longest content key stored as it is. A B-tree index entry holds at most 2,704 bytes (a 7,840-byte key failed a
 * formation); 600 characters are at most 2,400 bytes of UTF-8.
 */
const STORED_KEY_CHARS = 600

/** The content key as stored and looked up: a longer key keeps its start and a hash of the whole (still unique). */
export function storedContentKey(text: string): string {
	const key = contentKey(text)
	if (key.length <= STORED_KEY_CHARS) return key
	return `${key.slice(0, STORED_KEY_CHARS - 66)} #${createHash('sha256').update(key).digest('hex')}`
}

/** A subject, attribute or value as compared: the content key, or null when nothing is left. */
export function factKey(text: string | null | undefined): string | null {
	if (text === null || text === undefined) return null
	const key = contentKey(text)
	return key === '' ? null : key
}

/** Content words (no stopwords), lightly stemmed so "lives"/"live" and "hospitals"/"hospital" meet. */
export function contentWords(text: string): Set<string> {
	const words = contentKey(text)
		.split(' ')
		.filter((word) => word.length > 0 && !STOPWORDS.has(word))
	return new Set(words.map(stem))
}

/** A text's words (lower case, lightly stemmed) and, among them, those that identify rather than describe. */
export interface IdentifyingWords {
	words: Set<string>
	identifiers: Set<string>
}

/**
 * Identifying words hold a digit (codes, numbers, "Zorbel2") or start with a capital (names). Word vectors know few
 * of them, so two statements that differ only there embed alike; these are what tell them apart.
 */
export function identifyingWords(text: string): IdentifyingWords {
	const words = new Set<string>()
	const identifiers = new Set<string>()
	for (const word of text.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []) {
		const lower = word.toLowerCase()
		words.add(stem(lower))
		if (!STOPWORDS.has(lower) && (/\p{N}/u.test(word) || /^\p{Lu}/u.test(word))) identifiers.add(stem(lower))
	}
	return { words, identifiers }
}

/**
 * True when one text holds an identifying word the other does not hold at all: "Zorbel1 delivered QX0001K" and
 * "Zorbel2 delivered QX0002K" are different statements however close their vectors and other words are.
 */
export function identifiersDiffer(a: IdentifyingWords, b: IdentifyingWords): boolean {
	for (const word of a.identifiers) if (!b.words.has(word)) return true
	for (const word of b.identifiers) if (!a.words.has(word)) return true
	return false
}

function stem(word: string): string {
	if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3)
	if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2)
	if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`
	if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1)
	return word
}

/** Share of `inner`'s words that `outer` also has (1 when inner is empty). */
export function containment(inner: Set<string>, outer: Set<string>): number {
	if (inner.size === 0) return 1
	let shared = 0
	for (const word of inner) if (outer.has(word)) shared++
	return shared / inner.size
}

export function jaccard(a: Set<string>, b: Set<string>): number {
	if (a.size === 0 && b.size === 0) return 1
	let shared = 0
	for (const word of a) if (b.has(word)) shared++
	return shared / (a.size + b.size - shared)
}

export function cosine(a: Float32Array, b: Float32Array): number {
	let dot = 0
	for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!
	return dot
}
