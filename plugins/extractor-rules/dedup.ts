import type { MemoryCandidate } from '../../core/index.ts'

/** Words that change the tone of a statement, not what it says. */
const FILLERS = new Set([
	'a',
	'an',
	'the',
	'so',
	'really',
	'very',
	'just',
	'pretty',
	'super',
	'too',
	'also',
	'even',
	'totally',
	'definitely',
	'actually',
	'quite',
	'truly',
])
const MIN_CONTAINED_WORDS = 3

/** Lower case, words only, without fillers: "Melanie is SO excited!" and "Melanie is excited." are the same. */
export function normalizeStatement(content: string): string {
	return (content.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [])
		.filter((word) => !FILLERS.has(word))
		.join(' ')
}

/**
 * Merges near-duplicates of one extraction: statements equal after normalization, or one of which contains the
 * other (three words or more). The more informative (longer) one is kept, in the place of the first; sources,
 * dates and buckets are united, and a missing subject or attribute is taken from the other.
 */
export function mergeNearDuplicates(candidates: MemoryCandidate[]): MemoryCandidate[] {
	const kept: Entry[] = []
	for (const candidate of candidates) {
		const entry = toEntry(candidate)
		if (entry.normal === '') continue
		const twin = kept.find((other) => sameOrContained(other, entry))
		if (!twin) {
			kept.push(entry)
			continue
		}
		const incomingWins = entry.normal.length > twin.normal.length
		const merged = merge(incomingWins ? candidate : twin.candidate, incomingWins ? twin.candidate : candidate)
		Object.assign(twin, incomingWins ? { ...entry, candidate: merged } : { candidate: merged })
	}
	return kept.map((entry) => entry.candidate)
}

interface Entry {
	candidate: MemoryCandidate
	normal: string
	/** The normal form between spaces, so containment is of whole words. */
	padded: string
	words: number
}

function toEntry(candidate: MemoryCandidate): Entry {
	const normal = normalizeStatement(candidate.content)
	return { candidate, normal, padded: ` ${normal} `, words: normal === '' ? 0 : normal.split(' ').length }
}

function sameOrContained(a: Entry, b: Entry): boolean {
	if (a.normal === b.normal) return true
	const [shorter, longer] = a.normal.length < b.normal.length ? [a, b] : [b, a]
	return shorter.words >= MIN_CONTAINED_WORDS && longer.padded.includes(shorter.padded)
}

function merge(winner: MemoryCandidate, other: MemoryCandidate): MemoryCandidate {
	const merged: MemoryCandidate = {
		...winner,
		isStatic: winner.isStatic || other.isStatic,
		subject: winner.subject ?? other.subject,
		attribute: winner.attribute ?? other.attribute,
		value: winner.attribute ? winner.value : other.value,
		eventDates: union(winner.eventDates, other.eventDates).sort(),
		sourcePositions: union(winner.sourcePositions, other.sourcePositions).sort((a, b) => a - b),
		sourceTurns: union(winner.sourceTurns, other.sourceTurns).sort((a, b) => a - b),
	}
	if (winner.buckets || other.buckets) merged.buckets = union(winner.buckets ?? [], other.buckets ?? [])
	return merged
}

function union<T>(a: T[], b: T[]): T[] {
	return [...new Set([...a, ...b])]
}
