import type { ExtractionInput, MemoryCandidate } from '../../core/index.ts'
import type { InputPart } from './parts.ts'
import type { ModelMemory } from './schema.ts'

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * The model's memories as candidates, keeping only what checks out: non-empty content, real ISO dates, sources that
 * are units of this part, `derivedFrom` indexes of other kept memories (renumbered), bucket keys the input named.
 * Returns null when the model listed memories but none survived: the answer is then treated as invalid.
 */
export function sanitizeMemories(
	memories: ModelMemory[],
	part: InputPart,
	input: ExtractionInput,
): MemoryCandidate[] | null {
	const bucketKeys = new Set((input.buckets ?? []).map((bucket) => bucket.key))
	const unitNumbers = new Set(part.units.map((unit) => unit.number))
	const keptIndex = new Map<number, number>()
	const kept: { memory: ModelMemory; candidate: MemoryCandidate }[] = []
	for (const [index, memory] of memories.entries()) {
		const content = memory.content.trim()
		if (!content) continue
		const sources = unique(memory.sources.filter((number) => Number.isInteger(number) && unitNumbers.has(number))).sort(
			(a, b) => a - b,
		)
		const candidate: MemoryCandidate = {
			content,
			isStatic: memory.isStatic,
			subject: blankToNull(memory.subject),
			attribute: blankToNull(memory.attribute),
			value: blankToNull(memory.value),
			eventDates: unique(memory.eventDates.filter(isIsoDate)),
			sourcePositions: part.kind === 'chunks' ? sources : part.kind === 'turns' ? positionsOfTurns(sources, input) : [],
			sourceTurns: part.kind === 'turns' ? sources : [],
		}
		if (bucketKeys.size > 0) candidate.buckets = unique(memory.buckets.filter((key) => bucketKeys.has(key)))
		keptIndex.set(index, kept.length)
		kept.push({ memory, candidate })
	}
	if (memories.length > 0 && kept.length === 0) return null
	return kept.map(({ memory, candidate }, position) => {
		const derivedFrom = unique(
			memory.derivedFrom.flatMap((index) => {
				const renumbered = Number.isInteger(index) ? keptIndex.get(index) : undefined
				return renumbered === undefined || renumbered === position ? [] : [renumbered]
			}),
		)
		return derivedFrom.length > 0 ? { ...candidate, derivedFrom } : candidate
	})
}

/** Chunks that hold the text of the cited turns. */
function positionsOfTurns(turnIndexes: number[], input: ExtractionInput): number[] {
	const texts = (input.turns ?? []).filter((turn) => turnIndexes.includes(turn.index)).map((turn) => flatten(turn.text))
	return input.chunks
		.filter((chunk) => {
			const content = flatten(chunk.content)
			return texts.some((text) => text !== '' && content.includes(text))
		})
		.map((chunk) => chunk.position)
}

function flatten(text: string): string {
	return text.replace(/\s+/g, ' ').trim()
}

function isIsoDate(value: string): boolean {
	return (
		ISO_DATE.test(value) &&
		!Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
		new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)
	)
}

function blankToNull(value: string | null): string | null {
	return value?.trim() ? value.trim() : null
}

function unique<T>(values: T[]): T[] {
	return [...new Set(values)]
}
