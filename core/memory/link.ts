import type { MemoryRelation } from '../domain/memory.ts'
import type { FormationContext, FormationPlan, NewMemory, SourceRef } from '../plugins/memory-storage.ts'
import { findDuplicate, findExtended, nearestOf, sameFact, union, type Working, working } from './link-rules.ts'
import { contentWords } from './normalize.ts'

/** A statement ready to be linked: normalized keys, its vector and where it came from. */
export interface PreparedCandidate {
	content: string
	contentKey: string
	vector: Float32Array
	/** Normalised (factKey) subject, attribute and value. */
	subject: string | null
	attribute: string | null
	value: string | null
	isStatic: boolean
	eventDates: string[]
	buckets: string[]
	source: SourceRef | null
	/** Indexes (in the same list) of the statements this one is inferred from. */
	derivedFrom: number[]
	metadata: Record<string, unknown> | null
	forgetAfter: Date | null
	forgetReason: string | null
}

export type LinkOutcome =
	| { kind: 'new'; memoryId: string }
	| { kind: 'duplicate'; memoryId: string }
	| { kind: 'updates' | 'extends' | 'derives'; memoryId: string; relatedTo: string[] }

/**
 * Decides, statement by statement and in order, what each candidate is against the container's latest memories and
 * the ones this plan already made: (1) the same statement (same normalized text, or a near-duplicate) adds a source
 * to the existing memory; (2) the same subject and attribute with another value makes the next version (`updates`);
 * (3) a statement that contains an existing one and adds detail `extends` it; (4) a statement inferred from others of
 * the list `derives` from them. Everything else is a new memory. Pure: the caller writes the plan.
 */
export function planFormation(
	candidates: PreparedCandidate[],
	context: FormationContext,
	options: { documentId: string | null; newId: () => string },
): { plan: LinkPlan; outcomes: LinkOutcome[] } {
	return new Linker(context, options.newId).plan(candidates, context.nearest, options.documentId)
}

export type LinkPlan = Omit<FormationPlan, 'replaceDocumentSources' | 'formed'>

/**
 * The linking state of one formation transaction: the container's latest memories as the context gave them, then
 * as each planned document changes them, so several documents of a batch link in order (the second sees what the
 * first created or replaced).
 */
export class Linker {
	private readonly latest = new Map<string, Working>()

	constructor(
		context: FormationContext,
		private readonly newId: () => string,
	) {
		for (const memory of context.memories) {
			if (memory.isLatest && !memory.isForgotten) this.latest.set(memory.id, working(memory))
		}
	}

	/** Plans one document's candidates; `stored` are each candidate's stored neighbours (from the context). */
	plan(
		candidates: PreparedCandidate[],
		stored: FormationContext['nearest'],
		documentId: string | null,
	): { plan: LinkPlan; outcomes: LinkOutcome[] } {
		const latest = this.latest
		const create: NewMemory[] = []
		const attach: FormationPlan['attach'] = []
		const supersede: string[] = []
		const links: FormationPlan['links'] = []
		const outcomes: LinkOutcome[] = new Array(candidates.length)

		const addSource = (target: Working, source: SourceRef | null) => {
			if (!source) return
			if (target.created && target.createdFor === documentId) {
				const own = target.created.source ?? { chunkPositions: [], turnIndexes: [] }
				target.created.source = {
					chunkPositions: union(own.chunkPositions, source.chunkPositions),
					turnIndexes: union(own.turnIndexes, source.turnIndexes),
				}
			} else if (documentId) attach.push({ memoryId: target.id, ...source })
		}

		const createFrom = (candidate: PreparedCandidate, parent: Working | null, isInference: boolean): Working => {
			const id = this.newId()
			const memory: NewMemory = {
				id,
				memory: candidate.content,
				contentKey: candidate.contentKey,
				embedding: candidate.vector,
				version: parent ? parent.version + 1 : 1,
				parentMemoryId: parent?.id ?? null,
				rootId: parent?.rootId ?? id,
				isLatest: true,
				isStatic: candidate.isStatic || (parent?.isStatic ?? false),
				isInference,
				subject: candidate.subject,
				attribute: candidate.attribute,
				value: candidate.value,
				metadata: candidate.metadata,
				eventDates: candidate.eventDates,
				buckets: candidate.buckets,
				forgetAfter: candidate.forgetAfter,
				forgetReason: candidate.forgetReason,
				source: candidate.source,
			}
			create.push(memory)
			const made: Working = {
				...working(memory),
				created: memory,
				createdFor: documentId,
				vector: candidate.vector,
			}
			if (parent) {
				latest.delete(parent.id)
				if (parent.created) parent.created.isLatest = false
				else supersede.push(parent.id)
				links.push({ fromId: id, toId: parent.id, relation: 'updates' })
			}
			latest.set(id, made)
			return made
		}

		const link = (fromId: string, toIds: string[], relation: MemoryRelation) => {
			for (const toId of toIds) if (toId !== fromId) links.push({ fromId, toId, relation })
		}

		const order = [...candidates.keys()].sort(
			(a, b) => Number(candidates[a]!.derivedFrom.length > 0) - Number(candidates[b]!.derivedFrom.length > 0),
		)
		for (const index of order) {
			const candidate = candidates[index]!
			const words = contentWords(candidate.content)
			const nearest = nearestOf(candidate, stored[index] ?? [], latest)
			const duplicate = findDuplicate(candidate, words, nearest, latest)
			const premises = candidate.derivedFrom.flatMap((i) => (outcomes[i] ? [outcomes[i]!.memoryId] : []))
			if (duplicate) {
				addSource(duplicate, candidate.source)
				outcomes[index] = { kind: 'duplicate', memoryId: duplicate.id }
				continue
			}
			const previous = sameFact(candidate, latest)
			if (previous) {
				const made = createFrom(candidate, previous, premises.length > 0)
				link(made.id, premises, 'derives')
				outcomes[index] = { kind: 'updates', memoryId: made.id, relatedTo: [previous.id] }
				continue
			}
			if (premises.length > 0) {
				const made = createFrom(candidate, null, true)
				link(made.id, premises, 'derives')
				outcomes[index] = { kind: 'derives', memoryId: made.id, relatedTo: premises }
				continue
			}
			const extended = findExtended(candidate, words, nearest)
			const made = createFrom(candidate, null, false)
			if (extended.length > 0) {
				link(
					made.id,
					extended.map((memory) => memory.id),
					'extends',
				)
				outcomes[index] = { kind: 'extends', memoryId: made.id, relatedTo: extended.map((memory) => memory.id) }
			} else outcomes[index] = { kind: 'new', memoryId: made.id }
		}
		return { plan: { documentId, create, attach, supersede, links }, outcomes }
	}
}
