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
export function normaliseStatement(content: string): string {
	return (content.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [])
		.filter((word) => !FILLERS.has(word))
		.join(' ')
}

/**
 * Merges near-duplicates of one extraction: statements equal after normalisation, or one of which contains the
 * other (three words or more). The more informative (longer) one is kept, in the place of the first; sources,
 * dates and buckets are united, and a missing subject or attribute is taken from the other.
 */
export function mergeNearDuplicates(candidates: MemoryCandidate[]): MemoryCandidate[] {
	const kept: { candidate: MemoryCandidate; normal: string }[] = []
	for (const candidate of candidates) {
		const normal = normaliseStatement(candidate.content)
		if (normal === '') continue
		const twin = kept.find((entry) => sameOrContained(entry.normal, normal))
		if (!twin) {
			kept.push({ candidate, normal })
			continue
		}
		const incomingWins = normal.length > twin.normal.length
		twin.candidate = merge(incomingWins ? candidate : twin.candidate, incomingWins ? twin.candidate : candidate)
		if (incomingWins) twin.normal = normal
	}
	return kept.map((entry) => entry.candidate)
}

function sameOrContained(a: string, b: string): boolean {
	if (a === b) return true
	const [shorter, longer] = a.length < b.length ? [a, b] : [b, a]
	return shorter.split(' ').length >= MIN_CONTAINED_WORDS && ` ${longer} `.includes(` ${shorter} `)
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
