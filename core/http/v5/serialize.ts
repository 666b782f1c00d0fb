import type { MemoryLink, MemoryRecord } from '../../domain/memory.ts'
import type { ChunkRecord, DocumentHeader, DocumentRecord } from '../../domain/types.ts'

/** UTC with a literal Z and seconds, as every v5 timestamp. */
export const iso = (date: Date) => date.toISOString()

/** The id a v5 caller uses for a document: its caller id when it has one, else the generated id. */
export const publicId = (document: DocumentHeader) => document.customId ?? document.id

export const documentRef = (document: DocumentRecord) => ({ id: publicId(document), status: document.status })

export function documentOut(document: DocumentRecord, content: string | null) {
	return {
		id: publicId(document),
		title: document.title,
		type: document.type,
		summary: document.summary,
		content,
		metadata: document.metadata ?? {},
		system: { status: document.status, createdAt: iso(document.createdAt), updatedAt: iso(document.updatedAt) },
	}
}

export function documentListItem(document: DocumentRecord) {
	return {
		id: publicId(document),
		title: document.title,
		type: document.type,
		summary: document.summary,
		metadata: document.metadata ?? {},
		url: document.url,
		system: { status: document.status, createdAt: iso(document.createdAt), updatedAt: iso(document.updatedAt) },
	}
}

export function chunkOut(chunk: ChunkRecord) {
	return {
		id: chunk.id,
		position: chunk.position,
		content: chunk.content,
		type: chunk.type,
		metadata: chunk.metadata ?? {},
		system: { createdAt: iso(chunk.createdAt) },
	}
}

const expired = (memory: MemoryRecord) => memory.forgetAfter !== null && memory.forgetAfter.getTime() <= Date.now()

export function memoryOut(memory: MemoryRecord) {
	return {
		id: memory.id,
		memory: memory.memory,
		metadata: memory.metadata ?? {},
		isStatic: memory.isStatic,
		isInference: memory.isInference,
		isLatest: memory.isLatest,
		isForgotten: memory.isForgotten || expired(memory),
		version: memory.version,
		system: { createdAt: iso(memory.createdAt), updatedAt: iso(memory.updatedAt) },
	}
}

export function includedDocument(document: DocumentHeader) {
	return {
		id: publicId(document),
		title: document.title,
		type: document.type,
		metadata: document.metadata ?? {},
		summary: document.summary,
		system: { createdAt: iso(document.createdAt), updatedAt: iso(document.updatedAt) },
	}
}

export type Relation = MemoryLink['relation']

export function relatedMemory(memory: MemoryRecord, relation: Relation, version: number | null) {
	return {
		id: memory.id,
		relation,
		version,
		memory: memory.memory,
		metadata: memory.metadata ?? {},
		system: { updatedAt: iso(memory.updatedAt) },
	}
}

/**
 * A memory's neighbourhood: `parents` its older versions (nearest first) and what it extends or derives from,
 * `children` its newer versions and what extends or derives from it, `siblings` every extends/derives neighbour.
 */
export function relatedOf(
	self: MemoryRecord,
	graph: { memories: Iterable<MemoryRecord>; links: MemoryLink[] },
	limit = Number.POSITIVE_INFINITY,
) {
	const byId = new Map([...graph.memories].map((memory) => [memory.id, memory]))
	const chain = [...byId.values()]
		.filter((memory) => (memory.rootMemoryId ?? memory.id) === (self.rootMemoryId ?? self.id))
		.sort((a, b) => a.version - b.version)
	const parents = chain
		.filter((memory) => memory.version < self.version)
		.reverse()
		.map((memory) => ({ memory, relation: 'updates' as Relation, version: memory.version }))
	const children = chain
		.filter((memory) => memory.version > self.version)
		.map((memory) => ({ memory, relation: 'updates' as Relation, version: memory.version }))
	const siblings: typeof parents = []
	for (const link of graph.links) {
		if (link.relation === 'updates') continue
		const outgoing = link.fromId === self.id
		if (!outgoing && link.toId !== self.id) continue
		const other = byId.get(outgoing ? link.toId : link.fromId)
		if (other) siblings.push({ memory: other, relation: link.relation, version: other.version })
	}
	return {
		parents: parents.slice(0, limit),
		children: children.slice(0, limit),
		siblings: siblings.slice(0, limit),
	}
}
