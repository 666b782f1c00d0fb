import type { MemoryRecord } from '../domain/memory.ts'
import type { Metadata, Scope } from '../domain/types.ts'
import { notFound, ServiceError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { FormationPlan, NewMemory } from '../plugins/memory-storage.ts'
import { factsOf } from './facts.ts'
import type { FormationDeps } from './form-document.ts'
import { type PreparedCandidate, planFormation } from './link.ts'
import { factKey, storedContentKey } from './normalize.ts'
import { probeFor } from './prepare.ts'

export interface TemporalContext {
	documentDate?: string | null
	eventDate?: string[] | null
}

export interface NewMemoryInput {
	content: string
	isStatic?: boolean
	metadata?: Metadata
	forgetAfter?: Date | null
	forgetReason?: string | null
	temporalContext?: TemporalContext
}

const TITLE_CHARS = 120

/** temporalContext is kept inside metadata (as the published API describes), under its own two keys. */
export function withTemporalContext(
	metadata: Record<string, unknown> | null,
	temporal: TemporalContext | undefined,
): Record<string, unknown> | null {
	if (!temporal) return metadata
	const merged: Record<string, unknown> = { ...(metadata ?? {}) }
	if (temporal.documentDate !== undefined) merged.documentDate = temporal.documentDate
	if (temporal.eventDate !== undefined) merged.eventDate = temporal.eventDate
	return merged
}

/**
 * Memories written directly (POST /v4/memories): a source document holding their text is created (already done,
 * no chunks), and each memory is embedded and linked like an extracted one, so a duplicate gains the new source
 * instead of a second row and a changed fact becomes a new version. Returns, per input, the memory it ended up as.
 */
export async function createMemories(
	deps: FormationDeps,
	scope: Scope,
	containerTag: string,
	inputs: NewMemoryInput[],
): Promise<{ documentId: string; memories: MemoryRecord[] }> {
	const documentId = newId()
	const contents = inputs.map((input) => input.content.trim())
	const now = new Date().toISOString()
	const [facts, vectors] = await Promise.all([
		factsOf(deps.extractor, contents, { containerTag, documentId, date: now }),
		deps.embedder.embed(contents, 'document'),
	])
	const candidates: PreparedCandidate[] = inputs.map((input, index) => ({
		content: contents[index]!,
		contentKey: storedContentKey(contents[index]!),
		vector: vectors[index]!,
		subject: factKey(facts[index]?.subject),
		attribute: factKey(facts[index]?.attribute),
		value: factKey(facts[index]?.value),
		isStatic: input.isStatic ?? false,
		eventDates: input.temporalContext?.eventDate ?? facts[index]?.eventDates ?? [],
		buckets: [],
		source: { chunkPositions: [], turnIndexes: [] },
		derivedFrom: [],
		metadata: withTemporalContext(input.metadata ?? null, input.temporalContext),
		forgetAfter: input.forgetAfter ?? null,
		forgetReason: input.forgetAfter ? (input.forgetReason ?? null) : null,
	}))
	let outcomeIds: string[] = []
	await deps.storage.memories.form(scope, containerTag, null, probeFor(candidates), (context) => {
		const { plan, outcomes } = planFormation(candidates, context, { documentId, newId })
		outcomeIds = outcomes.map((outcome) => outcome.memoryId)
		return {
			...plan,
			createDocument: {
				id: documentId,
				containerTag,
				content: contents.join('\n'),
				contentHash: new Bun.CryptoHasher('sha256').update(contents.join('\n')).digest('hex'),
				title: titleOf(contents[0] ?? ''),
				metadata: null,
			},
			replaceDocumentSources: false,
		}
	})
	const records = new Map((await deps.storage.memories.getMany(scope, outcomeIds)).map((m) => [m.id, m]))
	return { documentId, memories: outcomeIds.flatMap((id) => records.get(id) ?? []) }
}

export interface UpdateMemoryInput {
	containerTag: string
	id?: string
	content?: string
	newContent: string
	metadata?: Metadata
	forgetAfter?: Date | null
	forgetReason?: string | null
	temporalContext?: TemporalContext
}

/**
 * PATCH /v4/memories: the next version of a memory (found by id or exact content in the container). The version it
 * replaces is the chain's latest, even when an older version was named; what is not given is inherited from it
 * (metadata, expiry and its reason, temporalContext, static flag, sources); `forgetAfter: null` clears the expiry
 * and its reason.
 */
export async function updateMemory(deps: FormationDeps, scope: Scope, input: UpdateMemoryInput): Promise<MemoryRecord> {
	const named = await findMemory(deps, scope, input.containerTag, input)
	const current = named.isLatest ? named : await latestOf(deps, scope, named)
	const content = input.newContent.trim()
	const [[fact], [vector]] = await Promise.all([
		factsOf(deps.extractor, [content], {
			containerTag: input.containerTag,
			documentId: current.documentIds[0] ?? current.id,
			date: new Date().toISOString(),
		}),
		deps.embedder.embed([content], 'document'),
	])
	const newMemoryId = newId()
	await deps.storage.memories.form(
		scope,
		input.containerTag,
		null,
		{ vectors: [], neighbours: 0, contentKeys: [], facts: [], ids: [current.id] },
		(context): FormationPlan => {
			// Read again inside the formation lock: a concurrent update may have replaced it meanwhile.
			const latest = context.memories.find((memory) => memory.id === current.id)
			if (!latest?.isLatest) throw new ServiceError(409, 'The memory changed while it was updated; try again')
			const metadata = withTemporalContext(
				input.metadata !== undefined ? input.metadata : latest.metadata,
				input.temporalContext,
			)
			const forgetAfter = input.forgetAfter !== undefined ? input.forgetAfter : latest.forgetAfter
			const forgetReason =
				forgetAfter === null ? null : input.forgetReason !== undefined ? input.forgetReason : latest.forgetReason
			const sameFact = factKey(fact?.subject) === latest.subject && factKey(fact?.attribute) === latest.attribute
			const created: NewMemory = {
				id: newMemoryId,
				memory: content,
				contentKey: storedContentKey(content),
				embedding: vector!,
				version: latest.version + 1,
				parentMemoryId: latest.id,
				rootId: latest.rootId,
				isLatest: true,
				isStatic: latest.isStatic,
				isInference: false,
				subject: latest.subject,
				attribute: latest.attribute,
				value: sameFact ? factKey(fact?.value) : null,
				metadata,
				eventDates: input.temporalContext?.eventDate ?? latest.eventDates,
				buckets: [],
				forgetAfter,
				forgetReason,
				source: null,
				inheritSourcesFrom: latest.id,
			}
			return {
				documentId: null,
				create: [created],
				attach: [],
				supersede: [latest.id],
				links: [{ fromId: newMemoryId, toId: latest.id, relation: 'updates' }],
				replaceDocumentSources: false,
			}
		},
	)
	const record = await deps.storage.memories.get(scope, newMemoryId)
	if (!record) throw notFound('Memory')
	return record
}

/** A memory of the container by id, or else by exact content; 404 when neither names one. */
export async function findMemory(
	deps: Pick<FormationDeps, 'storage'>,
	scope: Scope,
	containerTag: string,
	by: { id?: string; content?: string },
): Promise<MemoryRecord> {
	if (by.id !== undefined) {
		const memory = await deps.storage.memories.get(scope, by.id)
		if (memory && memory.containerTag === containerTag) return memory
		if (by.content === undefined) throw notFound('Memory')
	}
	const memory =
		by.content !== undefined ? await deps.storage.memories.findByContent(scope, containerTag, by.content) : null
	if (!memory) throw notFound('Memory')
	return memory
}

async function latestOf(deps: FormationDeps, scope: Scope, memory: MemoryRecord): Promise<MemoryRecord> {
	const { memories } = await deps.storage.memories.graph(scope, [memory.id])
	const chainRoot = memory.rootMemoryId ?? memory.id
	const latest = memories.find((m) => m.isLatest && (m.rootMemoryId ?? m.id) === chainRoot)
	if (!latest) throw notFound('Memory')
	return latest
}

function titleOf(text: string): string {
	const line = text.split('\n')[0]!.trim()
	return line.length <= TITLE_CHARS ? line : `${line.slice(0, TITLE_CHARS - 1).trimEnd()}…`
}
