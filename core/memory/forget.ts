import type { MemoryRecord } from '../domain/memory.ts'
import type { Scope } from '../domain/types.ts'
import { ServiceError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { EmbedderPlugin } from '../plugins/contract.ts'
import type { Storage } from '../plugins/storage.ts'
import { type Calibration, similarity } from '../search/calibration.ts'
import { focusOnContainer } from '../search/container-focus.ts'
import { CONTAINER_SAMPLE_SIZE } from '../search/container-samples.ts'
import { memoryQuery } from '../search/query-view.ts'
import { findMemory } from './write.ts'

export interface ForgetDeps {
	storage: Storage
	embedder: EmbedderPlugin
	calibration: Calibration
}

/** DELETE /v4/memories: forgets one memory (a flag; the row stays). 404 when absent, 409 when already forgotten. */
export async function forgetOne(
	deps: ForgetDeps,
	scope: Scope,
	input: { containerTag: string; id?: string; content?: string; reason?: string },
): Promise<string> {
	const memory = await findMemory(deps, scope, input.containerTag, input)
	if (memory.isForgotten) throw new ServiceError(409, 'Memory already forgotten', `memory ${memory.id} is forgotten`)
	const changed = await deps.storage.memories.forget(scope, input.containerTag, [memory.id], {
		reason: input.reason ?? null,
		batchId: null,
	})
	if (changed.length === 0) throw new ServiceError(409, 'Memory already forgotten', `memory ${memory.id} is forgotten`)
	return memory.id
}

export interface ForgetMatchingInput {
	containerTag: string
	query?: string
	ids?: string[]
	dryRun: boolean
	threshold: number
	maxForget: number
	reason?: string
}

export interface ForgetMatchingResult {
	dryRun: boolean
	count: number
	forgetBatchId: string | null
	summary: string
	matches: { id: string; memory: string; score: number }[]
}

/**
 * POST /v4/memories/forget-matching: the latest, not yet forgotten memories of the container that match a
 * natural-language query (scored like search, see search/calibration.ts, kept at or above `threshold`, best first,
 * at most `maxForget`), or the given ids. A dry run only reports them; otherwise they are all forgotten under one
 * batch id, with the reason stored.
 */
export async function forgetMatching(
	deps: ForgetDeps,
	scope: Scope,
	input: ForgetMatchingInput,
): Promise<ForgetMatchingResult> {
	const matches = (input.ids ? await byIds(deps, scope, input) : await byQuery(deps, scope, input)).slice(
		0,
		input.maxForget,
	)
	const what = input.query ? `matching "${oneLine(input.query)}"` : 'with the given ids'
	if (input.dryRun) {
		return {
			dryRun: true,
			count: matches.length,
			forgetBatchId: null,
			summary:
				matches.length === 0
					? `No memories in ${input.containerTag} ${what}; nothing would be forgotten.`
					: `Would forget ${count(matches.length)} in ${input.containerTag} ${what}.`,
			matches,
		}
	}
	const batchId = newId()
	const changed = new Set(
		await deps.storage.memories.forget(
			scope,
			input.containerTag,
			matches.map((match) => match.id),
			{ reason: input.reason ?? null, batchId },
		),
	)
	const forgotten = matches.filter((match) => changed.has(match.id))
	return {
		dryRun: false,
		count: forgotten.length,
		forgetBatchId: forgotten.length > 0 ? batchId : null,
		summary:
			forgotten.length === 0
				? `No memories in ${input.containerTag} ${what}; nothing was forgotten.`
				: `Forgot ${count(forgotten.length)} in ${input.containerTag} ${what}.`,
		matches: forgotten,
	}
}

async function byIds(deps: ForgetDeps, scope: Scope, input: ForgetMatchingInput) {
	const memories = await deps.storage.memories.getMany(scope, input.ids!)
	return memories
		.filter((memory) => memory.containerTag === input.containerTag && !memory.isForgotten)
		.map((memory) => ({ id: memory.id, memory: memory.memory, score: 1 }))
}

async function byQuery(deps: ForgetDeps, scope: Scope, input: ForgetMatchingInput) {
	const topic = topicOf(input.query!)
	const [written, sample] = await Promise.all([
		memoryQuery(deps.embedder, topic),
		deps.storage.memories.sampleVectors(scope, [input.containerTag], CONTAINER_SAMPLE_SIZE),
	])
	const { terms } = written
	const vector = focusOnContainer(written.vector, sample)
	const query = {
		containerTags: [input.containerTag],
		vector,
		terms,
		includeForgotten: false,
		includeHistory: false,
		limit: Math.min(1000, Math.max(50, input.maxForget * 2)),
	}
	const [byVector, byText] = await Promise.all([
		deps.storage.memories.searchByVector(scope, query),
		deps.storage.memories.searchByText(scope, query),
	])
	const baseline = await deps.calibration.baseline(vector, sample)
	const cosines = new Map(byVector.map((hit) => [hit.memoryId, hit.similarity]))
	const coverage = new Map(byText.map((hit) => [hit.memoryId, hit.coverage]))
	const floor = byVector.at(-1)?.similarity ?? 0
	const scored = [...new Set([...cosines.keys(), ...coverage.keys()])]
		.map((id) => ({ id, score: round(similarity(baseline, cosines.get(id) ?? floor, coverage.get(id) ?? 0)) }))
		.filter((match) => match.score >= input.threshold)
		.sort((a, b) => b.score - a.score)
	const records = new Map(
		(
			await deps.storage.memories.getMany(
				scope,
				scored.map((match) => match.id),
			)
		).map((memory: MemoryRecord) => [memory.id, memory]),
	)
	return scored.flatMap((match) => {
		const memory = records.get(match.id)
		return memory ? [{ id: match.id, memory: memory.memory, score: match.score }] : []
	})
}

/** "Forget everything about my old job" → "my old job": the instruction words would only blur the match. */
export function topicOf(query: string): string {
	const topic = query
		.trim()
		.replace(
			/^(?:please\s+)?(?:forget|remove|delete|erase|drop)\s+(?:(?:everything|all|anything|any|memories|things|stuff)\s+)*(?:(?:about|regarding|related to|concerning|on|of|that|mentioning)\s+)?/i,
			'',
		)
		.trim()
	return topic === '' ? query.trim() : topic
}

function count(n: number): string {
	return n === 1 ? '1 memory' : `${n} memories`
}

function oneLine(text: string): string {
	const line = text.replace(/\s+/g, ' ').trim()
	return line.length <= 80 ? line : `${line.slice(0, 79)}…`
}

function round(value: number): number {
	return Math.round(value * 10_000) / 10_000
}
