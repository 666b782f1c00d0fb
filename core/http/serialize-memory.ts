import type { MemoryLink, MemoryRecord } from '../domain/memory.ts'
import type { DocumentHeader } from '../domain/types.ts'
import type { MemoryListEntry } from '../memory/service.ts'
import type { MemoryHit, SearchHit } from '../search/memory-search.ts'

const iso = (date: Date) => date.toISOString()
const round = (value: number) => Math.round(value * 10_000) / 10_000

/** GET /v3/documents/{id} `memories[]`: every field the published client requires of an item. */
export function memoryOfDocument(memory: MemoryRecord) {
	return {
		id: memory.id,
		memory: memory.memory,
		createdAt: iso(memory.createdAt),
		updatedAt: iso(memory.updatedAt),
		isLatest: memory.isLatest,
		isForgotten: memory.isForgotten,
		isStatic: memory.isStatic,
		isInference: memory.isInference,
		version: memory.version,
		sourceCount: memory.documentIds.length,
		metadata: memory.metadata,
		parentMemoryId: memory.parentMemoryId,
		rootMemoryId: memory.rootMemoryId,
	}
}

/** POST /v4/memories `memories[]`. */
export function createdMemory(memory: MemoryRecord) {
	return {
		id: memory.id,
		memory: memory.memory,
		isStatic: memory.isStatic,
		createdAt: iso(memory.createdAt),
		forgetAfter: memory.forgetAfter ? iso(memory.forgetAfter) : null,
		forgetReason: memory.forgetReason,
		metadata: memory.metadata,
	}
}

/** PATCH /v4/memories. */
export function updatedMemory(memory: MemoryRecord) {
	return {
		id: memory.id,
		memory: memory.memory,
		version: memory.version,
		parentMemoryId: memory.parentMemoryId,
		rootMemoryId: memory.rootMemoryId,
		createdAt: iso(memory.createdAt),
		forgetAfter: memory.forgetAfter ? iso(memory.forgetAfter) : null,
		forgetReason: memory.forgetReason,
		metadata: memory.metadata,
	}
}

/** temporalContext of a memory: the documentDate / eventDate kept in its metadata, or its event dates. */
function temporalContext(memory: MemoryRecord): Record<string, unknown> | null {
	const context: Record<string, unknown> = {}
	if (memory.metadata && 'documentDate' in memory.metadata) context.documentDate = memory.metadata.documentDate
	if (memory.metadata && 'eventDate' in memory.metadata) context.eventDate = memory.metadata.eventDate
	else if (memory.eventDates.length > 0) context.eventDate = memory.eventDates
	return Object.keys(context).length > 0 ? context : null
}

/** POST /v4/memories/list `memoryEntries[]`. */
export function memoryEntry({ memory, history, relations }: MemoryListEntry) {
	return {
		id: memory.id,
		memory: memory.memory,
		version: memory.version,
		isLatest: memory.isLatest,
		isForgotten: memory.isForgotten,
		isStatic: memory.isStatic,
		isInference: memory.isInference,
		createdAt: iso(memory.createdAt),
		updatedAt: iso(memory.updatedAt),
		spaceId: memory.containerTag,
		containerTag: memory.containerTag,
		orgId: memory.orgId,
		sourceCount: memory.documentIds.length,
		parentMemoryId: memory.parentMemoryId,
		rootMemoryId: memory.rootMemoryId,
		forgetAfter: memory.forgetAfter ? iso(memory.forgetAfter) : null,
		forgetReason: memory.forgetReason,
		metadata: memory.metadata,
		memoryRelations: Object.keys(relations).length > 0 ? relations : null,
		temporalContext: temporalContext(memory),
		history: history.map((older) => ({
			id: older.id,
			memory: older.memory,
			version: older.version,
			createdAt: iso(older.createdAt),
			updatedAt: iso(older.updatedAt),
			parentMemoryId: older.parentMemoryId,
			rootMemoryId: older.rootMemoryId,
			isLatest: older.isLatest,
			isForgotten: older.isForgotten,
		})),
		documentIds: memory.documentIds,
	}
}

export interface SearchIncludes {
	documents: boolean
	summaries: boolean
}

/** POST /v4/search `results[]`: memory results carry `memory`, chunk results `chunk`. */
export function searchResult(hit: SearchHit, include: SearchIncludes) {
	if (hit.kind === 'chunk') {
		return {
			id: hit.chunk.id,
			type: 'chunk' as const,
			chunk: hit.chunk.content,
			similarity: round(hit.similarity),
			metadata: hit.document.metadata,
			updatedAt: iso(hit.document.updatedAt),
			documentId: hit.document.id,
			position: hit.chunk.position,
			...(hit.provisional ? { provisional: true } : {}),
			...(include.documents || include.summaries ? { documents: [resultDocument(hit.document, include)] } : {}),
		}
	}
	const { memory } = hit
	return {
		id: memory.id,
		type: 'memory' as const,
		memory: memory.memory,
		similarity: round(hit.similarity),
		metadata: memory.metadata,
		updatedAt: iso(memory.updatedAt),
		version: memory.version,
		rootMemoryId: memory.rootMemoryId,
		...(memory.isInference ? { isAggregated: true } : {}),
		...(hit.documents ? { documents: hit.documents.map((document) => resultDocument(document, include)) } : {}),
		...(hit.graph ? { context: memoryContext(hit) } : {}),
		...(hit.chunks
			? {
					chunks: hit.chunks.map(({ chunk, similarity }) => ({
						content: chunk.content,
						score: round(similarity),
						position: chunk.position,
						documentId: chunk.documentId,
					})),
				}
			: {}),
	}
}

function resultDocument(document: DocumentHeader, include: SearchIncludes) {
	return {
		id: document.id,
		createdAt: iso(document.createdAt),
		updatedAt: iso(document.updatedAt),
		...(include.documents ? { title: document.title, type: document.type, metadata: document.metadata } : {}),
		...(include.summaries ? { summary: document.summary } : {}),
	}
}

/**
 * The hit's neighbourhood: `parents` are its older versions (`updates`, -1 parent, -2 grandparent...) and what it
 * extends or derives from (-1); `children` its newer versions (+1, +2...) and what extends or derives from it (+1);
 * `related` every extends/derives neighbour, either way.
 */
function memoryContext(hit: MemoryHit) {
	const { memories, links } = hit.graph!
	const self = hit.memory
	const item = (memory: MemoryRecord, relation: MemoryLink['relation'], version: number | null) => ({
		relation,
		version,
		memory: memory.memory,
		metadata: memory.metadata,
		updatedAt: iso(memory.updatedAt),
	})
	const chain = [...memories.values()]
		.filter((memory) => (memory.rootMemoryId ?? memory.id) === (self.rootMemoryId ?? self.id))
		.sort((a, b) => a.version - b.version)
	const parents = chain
		.filter((memory) => memory.version < self.version)
		.reverse()
		.map((memory) => item(memory, 'updates', memory.version - self.version))
	const children = chain
		.filter((memory) => memory.version > self.version)
		.map((memory) => item(memory, 'updates', memory.version - self.version))
	const related: {
		relation: 'extends' | 'derives'
		memory: string
		metadata: Record<string, unknown> | null
		updatedAt: string
	}[] = []
	for (const link of links) {
		if (link.relation === 'updates') continue
		const outgoing = link.fromId === self.id
		if (!outgoing && link.toId !== self.id) continue
		const other = memories.get(outgoing ? link.toId : link.fromId)
		if (!other) continue
		if (outgoing) parents.push(item(other, link.relation, -1))
		else children.push(item(other, link.relation, 1))
		related.push({
			relation: link.relation,
			memory: other.memory,
			metadata: other.metadata,
			updatedAt: iso(other.updatedAt),
		})
	}
	return { parents, children, related }
}
