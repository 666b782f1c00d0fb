/** The rules that decide what a statement is to the memories it is compared with (link.ts applies them). */
import type { LinkableMemory, NewMemory } from '../plugins/memory-storage.ts'
import type { PreparedCandidate } from './link.ts'
import {
	containment,
	contentWords,
	cosine,
	type IdentifyingWords,
	identifiersDiffer,
	identifyingWords,
	jaccard,
} from './normalize.ts'

/**
 * Near-duplicates: statements sharing this much of their content words (Jaccard), or whose vectors are this close,
 * are the same memory. Both are deliberately strict: a missed duplicate costs one extra row, a wrong merge loses a fact.
 */
const DUPLICATE_WORDS = 0.85
const DUPLICATE_COSINE = 0.97
/** `extends`: the new statement holds at least this share of an existing memory's words and adds some of its own. */
const EXTENDS_CONTAINMENT = 0.75
const EXTENDS_EXTRA_WORDS = 2

export interface Working {
	id: string
	contentKey: string
	words: Set<string>
	identifying: IdentifyingWords
	subject: string | null
	attribute: string | null
	value: string | null
	version: number
	rootId: string
	isStatic: boolean
	/** Set for memories created in this transaction, with the document they were created for. */
	created?: NewMemory
	createdFor?: string | null
	vector?: Float32Array
}

/** The linking view of a stored memory, or of one this formation creates. */
export function working(
	memory: Pick<
		LinkableMemory,
		'id' | 'memory' | 'contentKey' | 'subject' | 'attribute' | 'value' | 'version' | 'rootId' | 'isStatic'
	>,
): Working {
	return {
		id: memory.id,
		contentKey: memory.contentKey,
		words: contentWords(memory.memory),
		identifying: identifyingWords(memory.memory),
		subject: memory.subject,
		attribute: memory.attribute,
		value: memory.value,
		version: memory.version,
		rootId: memory.rootId,
		isStatic: memory.isStatic,
	}
}

/** Latest memories close to the candidate: the stored neighbours still latest, and this plan's own memories. */
export function nearestOf(
	candidate: PreparedCandidate,
	stored: { memoryId: string; similarity: number }[],
	latest: Map<string, Working>,
): { memory: Working; similarity: number }[] {
	const near: { memory: Working; similarity: number }[] = []
	for (const hit of stored) {
		const memory = latest.get(hit.memoryId)
		if (memory) near.push({ memory, similarity: hit.similarity })
	}
	for (const memory of latest.values()) {
		if (memory.vector) near.push({ memory, similarity: cosine(candidate.vector, memory.vector) })
	}
	return near.sort((a, b) => b.similarity - a.similarity)
}

export function findDuplicate(
	candidate: PreparedCandidate,
	words: Set<string>,
	nearest: { memory: Working; similarity: number }[],
	latest: Map<string, Working>,
): Working | null {
	for (const memory of latest.values()) if (memory.contentKey === candidate.contentKey) return memory
	if (candidate.subject && candidate.attribute && candidate.value) {
		for (const memory of latest.values()) {
			if (
				memory.subject === candidate.subject &&
				memory.attribute === candidate.attribute &&
				memory.value === candidate.value
			)
				return memory
		}
	}
	const identifying = identifyingWords(candidate.content)
	for (const { memory, similarity } of nearest) {
		if (conflicts(candidate, memory) || identifiersDiffer(identifying, memory.identifying)) continue
		if (similarity >= DUPLICATE_COSINE || jaccard(words, memory.words) >= DUPLICATE_WORDS) return memory
	}
	return null
}

/** The latest memory stating the same subject and attribute with another value: the one this candidate updates. */
export function sameFact(candidate: PreparedCandidate, latest: Map<string, Working>): Working | null {
	if (!candidate.subject || !candidate.attribute) return null
	let found: Working | null = null
	for (const memory of latest.values()) {
		if (memory.subject !== candidate.subject || memory.attribute !== candidate.attribute) continue
		if (memory.value === candidate.value && candidate.value !== null) continue
		// Several (an older store, or extended ones): the most recent wins, one made in this transaction first.
		if (!found || (memory.created && !found.created) || (!found.created && memory.version > found.version))
			found = memory
	}
	return found
}

/** Two statements about the same subject's attribute with different values are never duplicates of each other. */
function conflicts(candidate: PreparedCandidate, memory: Working): boolean {
	return (
		candidate.subject !== null &&
		candidate.attribute !== null &&
		memory.subject === candidate.subject &&
		memory.attribute === candidate.attribute &&
		memory.value !== candidate.value
	)
}

export function findExtended(
	candidate: PreparedCandidate,
	words: Set<string>,
	nearest: { memory: Working; similarity: number }[],
): Working[] {
	return nearest
		.map(({ memory }) => memory)
		.filter((memory) => {
			if (candidate.subject && memory.subject && candidate.subject !== memory.subject) return false
			if (candidate.attribute && memory.attribute && candidate.attribute !== memory.attribute) return false
			if (words.size < memory.words.size + EXTENDS_EXTRA_WORDS) return false
			return containment(memory.words, words) >= EXTENDS_CONTAINMENT
		})
		.slice(0, 1)
}

export function union(a: number[], b: number[]): number[] {
	return [...new Set([...a, ...b])].sort((x, y) => x - y)
}
