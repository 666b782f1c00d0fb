import type { SimulationLinkDatum, SimulationNodeDatum } from 'd3-force'

export type EdgeKind = 'derives' | 'updates' | 'extends'

export interface GraphNode extends SimulationNodeDatum {
	id: string
	kind: 'document' | 'memory'
	label: string
	/** False for older versions of a memory. */
	latest: boolean
	forgotten: boolean
	version?: number
	containerTag?: string
	status?: string
}

export interface GraphEdge extends SimulationLinkDatum<GraphNode> {
	source: string | GraphNode
	target: string | GraphNode
	kind: EdgeKind
}

export interface DocumentIn {
	id: string
	title: string | null
	customId: string | null
	url?: string | null
	status: string
	containerTags: string[]
}

interface VersionIn {
	id: string
	memory: string
	version: number
	parentMemoryId: string | null
	isLatest: boolean
	isForgotten: boolean
}

export interface MemoryIn extends VersionIn {
	containerTag: string
	documentIds: string[]
	memoryRelations: Record<string, string> | null
	history: VersionIn[]
}

/**
 * Documents and memories as one graph: a document `derives` the memories formed from it, a memory `updates` its
 * previous version (the version chain, older versions drawn too) and `extends` or `derives` from other memories.
 */
export function buildGraph(documents: DocumentIn[], memories: MemoryIn[]): { nodes: GraphNode[]; edges: GraphEdge[] } {
	const nodes = new Map<string, GraphNode>()
	const edges: GraphEdge[] = []
	const seen = new Set<string>()
	const edge = (source: string, target: string, kind: EdgeKind) => {
		const key = `${source}>${target}`
		if (source === target || seen.has(key)) return
		seen.add(key)
		edges.push({ source, target, kind })
	}
	for (const doc of documents) {
		nodes.set(doc.id, {
			id: doc.id,
			kind: 'document',
			label: doc.title ?? doc.customId ?? doc.url ?? doc.id,
			latest: true,
			forgotten: false,
			status: doc.status,
			containerTag: doc.containerTags[0],
		})
	}
	const addVersion = (version: VersionIn, containerTag: string) => {
		if (nodes.has(version.id)) return
		nodes.set(version.id, {
			id: version.id,
			kind: 'memory',
			label: version.memory,
			latest: version.isLatest,
			forgotten: version.isForgotten,
			version: version.version,
			containerTag,
		})
	}
	for (const memory of memories) {
		addVersion(memory, memory.containerTag)
		for (const older of memory.history) addVersion(older, memory.containerTag)
	}
	for (const memory of memories) {
		for (const documentId of memory.documentIds) if (nodes.has(documentId)) edge(documentId, memory.id, 'derives')
		for (const version of [memory, ...memory.history]) {
			if (version.parentMemoryId && nodes.has(version.parentMemoryId))
				edge(version.id, version.parentMemoryId, 'updates')
		}
		for (const [other, relation] of Object.entries(memory.memoryRelations ?? {})) {
			if (!nodes.has(other)) continue
			if (relation === 'updates' || relation === 'extends' || relation === 'derives') edge(memory.id, other, relation)
		}
	}
	return { nodes: [...nodes.values()], edges }
}
