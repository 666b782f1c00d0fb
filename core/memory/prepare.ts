import { yieldToEventLoop } from '../jobs/yield.ts'
import type { ConversationTurn, EmbedderPlugin, MemoryCandidate } from '../plugins/contract.ts'
import type { FormationProbe } from '../plugins/memory-storage.ts'
import type { PreparedCandidate } from './link.ts'
import { contentKey, factKey, storedContentKey } from './normalize.ts'

const EMBED_BATCH = 64
const MAX_MEMORY_CHARS = 10_000
/**
 * Stored neighbours per candidate considered for near-duplicates and extensions. Both rules only ever match the
 * closest few, so 4 forms the same memories as 8 while the formation's context read and linking (on one container's
 * critical path) handle half the rows (docs/measurements.md).
 */
const NEIGHBOURS = 4

export interface CandidateDefaults {
	metadata: Record<string, unknown> | null
	forgetAfter?: Date | null
	forgetReason?: string | null
}

/**
 * Cleans extractor output (empty and repeated statements go, keys are normalized, turn sources gain their chunk
 * positions) and embeds what is left in batches.
 */
export async function prepareCandidates(
	candidates: MemoryCandidate[],
	embedder: EmbedderPlugin,
	context: {
		chunks: { position: number; content: string }[]
		turns: ConversationTurn[] | null
		defaults: CandidateDefaults
	},
): Promise<PreparedCandidate[]> {
	const kept: { candidate: MemoryCandidate; content: string; oldIndex: number }[] = []
	const seen = new Map<string, number>()
	const remap = new Map<number, number>()
	for (const [oldIndex, candidate] of candidates.entries()) {
		const content = candidate.content.trim().slice(0, MAX_MEMORY_CHARS)
		const key = contentKey(content)
		if (key === '') continue
		const earlier = seen.get(key)
		if (earlier !== undefined) {
			remap.set(oldIndex, earlier)
			continue
		}
		seen.set(key, kept.length)
		remap.set(oldIndex, kept.length)
		kept.push({ candidate, content, oldIndex })
	}
	const vectors: Float32Array[] = []
	for (let start = 0; start < kept.length; start += EMBED_BATCH) {
		const batch = kept.slice(start, start + EMBED_BATCH).map((entry) => entry.content)
		vectors.push(...(await embedder.embed(batch, 'document')))
		// A local embedder computes on the event loop: requests get their turn between batches.
		await yieldToEventLoop()
	}
	const positionsOfTurn = turnLocator(context.chunks, context.turns)
	return kept.map(({ candidate, content }, index) => {
		const turns = candidate.sourceTurns ?? []
		const positions =
			candidate.sourcePositions && candidate.sourcePositions.length > 0
				? candidate.sourcePositions
				: turns.flatMap(positionsOfTurn)
		return {
			content,
			contentKey: storedContentKey(content),
			vector: vectors[index]!,
			subject: factKey(candidate.subject),
			attribute: factKey(candidate.attribute),
			value: factKey(candidate.value),
			isStatic: candidate.isStatic === true,
			eventDates: candidate.eventDates ?? [],
			buckets: candidate.buckets ?? [],
			source: { chunkPositions: [...new Set(positions)].sort((a, b) => a - b), turnIndexes: [...new Set(turns)] },
			derivedFrom: [...new Set((candidate.derivedFrom ?? []).flatMap((i) => remap.get(i) ?? []))].filter(
				(i) => i !== index,
			),
			metadata: context.defaults.metadata,
			forgetAfter: context.defaults.forgetAfter ?? null,
			forgetReason: context.defaults.forgetReason ?? null,
		}
	})
}

/** What a formation reads for these candidates. */
export function probeFor(candidates: PreparedCandidate[], ids: string[] = []): FormationProbe {
	return {
		vectors: candidates.map((candidate) => candidate.vector),
		neighbours: NEIGHBOURS,
		contentKeys: candidates.map((candidate) => candidate.contentKey),
		facts: candidates.flatMap((candidate) =>
			candidate.subject && candidate.attribute ? [{ subject: candidate.subject, attribute: candidate.attribute }] : [],
		),
		ids,
	}
}

/** Chunk positions holding a turn, found by the start of its text (for extractors that only report turns). */
function turnLocator(
	chunks: { position: number; content: string }[],
	turns: ConversationTurn[] | null,
): (turnIndex: number) => number[] {
	const byIndex = new Map((turns ?? []).map((turn) => [turn.index, turn]))
	return (turnIndex) => {
		const turn = byIndex.get(turnIndex)
		if (!turn) return []
		const probe = turn.text.slice(0, 60)
		if (probe === '') return []
		return chunks.filter((chunk) => chunk.content.includes(probe)).map((chunk) => chunk.position)
	}
}
