import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtemp, rm, stat, truncate } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, type PluginContext } from '../../core/index.ts'
import { decodeCache, encodeCache, InvalidCacheError } from '../../plugins/embedder-local/cache-format.ts'
import { type EmbedderLocal, embedderLocal } from '../../plugins/embedder-local/index.ts'
import { locateSource } from '../../plugins/embedder-local/model-cache.ts'
import { tokenize } from '../../plugins/embedder-local/tokenize.ts'

const ctx = {
	logger: createLogger('silent'),
	env: {},
	vectorSpace: { id: 'local:wink-sg-100d:sif-1', dimensions: 100 },
} satisfies PluginContext

function cosine(a: Float32Array, b: Float32Array): number {
	let dot = 0
	for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!
	return dot
}

function length(vector: Float32Array): number {
	return Math.sqrt(cosine(vector, vector))
}

async function started(cacheDir: string): Promise<EmbedderLocal> {
	const embedder = embedderLocal({ cacheDir })
	await embedder.init?.(ctx)
	return embedder
}

const SAMPLES = ['I adopted a puppy', 'we got a new dog', 'the quarterly tax report is due', 'xqzt blorf', '']

describe('embedder-local', () => {
	let cacheDir: string
	let first: EmbedderLocal
	let firstVectors: Float32Array[]

	beforeAll(async () => {
		cacheDir = await mkdtemp(join(tmpdir(), 'embedder-local-'))
		first = await started(cacheDir)
		firstVectors = await first.embed(SAMPLES, 'document')
	}, 60_000)
	afterAll(() => rm(cacheDir, { recursive: true, force: true }))

	it('builds the binary cache on first use', async () => {
		expect(first.status).toMatchObject({ origin: 'built', rebuildReason: 'missing' })
		expect((await stat(first.status!.cachePath)).size).toBe(first.status!.cacheBytes)
		expect(first.space).toEqual({ id: 'local:wink-sg-100d:sif-1', dimensions: 100 })
	})

	it('loads a second instance from the cache without rebuilding it', async () => {
		const before = await stat(first.status!.cachePath)
		const second = await started(cacheDir)
		const after = await stat(second.status!.cachePath)

		expect(second.status!.origin).toBe('cache')
		expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs])
		const vectors = await second.embed(SAMPLES, 'query')
		expect(vectors.map((vector) => Array.from(vector))).toEqual(firstVectors.map((vector) => Array.from(vector)))
	})

	it('returns one deterministic unit-length vector of 100 dimensions per text', async () => {
		const again = await first.embed(SAMPLES, 'document')

		expect(firstVectors).toHaveLength(SAMPLES.length)
		for (const vector of firstVectors) {
			expect(vector.length).toBe(100)
			expect(length(vector)).toBeCloseTo(1, 5)
		}
		expect(again.map((vector) => Array.from(vector))).toEqual(firstVectors.map((vector) => Array.from(vector)))
	})

	it('puts related sentences closer together than unrelated ones', () => {
		const [puppy, dog, tax] = firstVectors

		expect(cosine(puppy!, dog!)).toBeGreaterThan(cosine(puppy!, tax!) + 0.2)
	})

	it('ranks a paraphrase above unrelated sentences for a query', async () => {
		const [query, ...candidates] = await first.embed(
			[
				'which programming language does the user prefer',
				'the weather in paris was rainy all week',
				'my favourite coding language is typescript',
				'she baked a chocolate cake for the party',
			],
			'query',
		)
		const scores = candidates.map((candidate) => cosine(query!, candidate))

		expect(scores.indexOf(Math.max(...scores))).toBe(1)
	})

	it('gives text without a known word a finite, non-zero unit vector that depends on its spelling', async () => {
		const [unknown, plural, otherScript, symbols] = await first.embed(
			['xqzt blorf', 'xqzt blorfs', '東京タワー', '!!!'],
			'query',
		)

		for (const vector of [unknown, plural, otherScript, symbols]) {
			expect(vector!.every(Number.isFinite)).toBe(true)
			expect(length(vector!)).toBeCloseTo(1, 5)
		}
		expect(cosine(unknown!, plural!)).toBeGreaterThan(cosine(unknown!, otherScript!))
	})

	it('embeds the empty string and whitespace to the same unit vector', async () => {
		const [empty, blank] = await first.embed(['', ' \n\t '], 'document')

		expect(length(empty!)).toBeCloseTo(1, 5)
		expect(Array.from(blank!)).toEqual(Array.from(empty!))
	})

	it('refuses to embed before init', async () => {
		await expect(embedderLocal({ cacheDir }).embed(['hello'], 'query')).rejects.toThrow('before init()')
	})

	it('rebuilds a truncated cache', async () => {
		const path = first.status!.cachePath
		await truncate(path, Math.floor(first.status!.cacheBytes / 2))
		const rebuilt = await started(cacheDir)

		expect(rebuilt.status!.origin).toBe('built')
		expect(rebuilt.status!.rebuildReason).toContain('size')
		expect((await stat(path)).size).toBe(first.status!.cacheBytes)
		const vectors = await rebuilt.embed(SAMPLES, 'document')
		expect(vectors.map((vector) => Array.from(vector))).toEqual(firstVectors.map((vector) => Array.from(vector)))
	})

	it('rejects a cache with a flipped byte, another fingerprint or a damaged header', async () => {
		const { fingerprint } = await locateSource()
		const bytes = new Uint8Array(await Bun.file(first.status!.cachePath).arrayBuffer())
		expect(decodeCache(bytes, fingerprint).words.length).toBeGreaterThan(300_000)

		const flipped = bytes.slice()
		flipped[flipped.length - 1000]! ^= 0x40
		expect(() => decodeCache(flipped, fingerprint)).toThrow(new InvalidCacheError('checksum mismatch'))
		expect(() => decodeCache(bytes, `${fingerprint}-other`)).toThrow(InvalidCacheError)
		const damagedHeader = bytes.slice()
		damagedHeader[14] = 0x7b
		expect(() => decodeCache(damagedHeader, fingerprint)).toThrow(InvalidCacheError)
		expect(() => decodeCache(new Uint8Array(0), fingerprint)).toThrow(InvalidCacheError)
	})
})

describe('word-vector cache format', () => {
	it('round-trips a table, whatever the alignment of the bytes it is read from', () => {
		const table = {
			fingerprint: 'test',
			dimensions: 3,
			words: ['the', 'café', 'dog'],
			scales: new Float32Array([0.5, 0.25, 2]),
			matrix: new Int8Array([1, -2, 3, 127, -127, 0, 5, 6, -7]),
		}
		const encoded = encodeCache(table)
		const shifted = new Uint8Array(encoded.length + 1)
		shifted.set(encoded, 1)

		for (const bytes of [encoded, shifted.subarray(1)]) {
			const decoded = decodeCache(bytes, 'test')
			expect(decoded.words).toEqual(table.words)
			expect(Array.from(decoded.scales)).toEqual(Array.from(table.scales))
			expect(Array.from(decoded.matrix)).toEqual(Array.from(table.matrix))
		}
	})
})

describe('tokenize', () => {
	const vocabulary = new Set([
		'e-mail',
		'do',
		'not',
		'can',
		'will',
		'dog',
		'it',
		'cafe',
		'state',
		'art',
		'oneill',
		'mp3',
	])
	const known = (word: string) => vocabulary.has(word)

	it('lower-cases, folds accents and curly apostrophes', () => {
		expect(tokenize('CAFÉ It’s', known)).toEqual(['cafe', 'it'])
	})

	it('expands negations and drops possessives', () => {
		expect(tokenize("Don't, can't, won't; the dog's bone", known)).toEqual([
			'do',
			'not',
			'can',
			'not',
			'will',
			'not',
			'the',
			'dog',
			'bone',
		])
	})

	it('keeps known compounds whole and splits unknown ones', () => {
		expect(tokenize('e-mail state-of-the-art O’Neill', known)).toEqual([
			'e-mail',
			'state',
			'of',
			'the',
			'art',
			'oneill',
		])
	})

	it('keeps digits inside words and splits numbers at punctuation', () => {
		expect(tokenize('mp3 covid-19 costs 3.5% of 1,000', known)).toEqual([
			'mp3',
			'covid',
			'19',
			'costs',
			'3',
			'5',
			'of',
			'1',
			'000',
		])
	})

	it('finds no words in punctuation or an empty string', () => {
		expect(tokenize('', known)).toEqual([])
		expect(tokenize(' -- !!! ... ', known)).toEqual([])
	})
})
