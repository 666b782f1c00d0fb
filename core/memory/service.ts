import type { MemoryRecord, MemoryRelation } from '../domain/memory.ts'
import type { Scope } from '../domain/types.ts'
import type { ListMemoriesQuery } from '../plugins/memory-storage.ts'
import type { Calibration } from '../search/calibration.ts'
import { type ForgetMatchingInput, forgetMatching, forgetOne } from './forget.ts'
import type { FormationDeps } from './form-document.ts'
import { createMemories, type NewMemoryInput, type UpdateMemoryInput, updateMemory } from './write.ts'

export interface MemoryListEntry {
	memory: MemoryRecord
	/** Older versions of its chain, newest first. */
	history: MemoryRecord[]
	/** Memories it points to, with the relation (its parent `updates`, and what it extends or derives from). */
	relations: Record<string, MemoryRelation>
}

/** The memory operations behind the v4 routes; HTTP-free. */
export function createMemoryService(deps: FormationDeps & { calibration: Calibration }) {
	const { storage } = deps
	return {
		create: (scope: Scope, containerTag: string, memories: NewMemoryInput[]) =>
			createMemories(deps, scope, containerTag, memories),
		update: (scope: Scope, input: UpdateMemoryInput) => updateMemory(deps, scope, input),
		forget: (scope: Scope, input: { containerTag: string; id?: string; content?: string; reason?: string }) =>
			forgetOne(deps, scope, input),
		forgetMatching: (scope: Scope, input: ForgetMatchingInput) => forgetMatching(deps, scope, input),

		async list(scope: Scope, query: ListMemoriesQuery): Promise<{ entries: MemoryListEntry[]; total: number }> {
			const { memories, total } = await storage.memories.list(scope, query)
			const graph = await storage.memories.graph(
				scope,
				memories.map((memory) => memory.id),
			)
			const entries = memories.map((memory) => {
				const chain = memory.rootMemoryId ?? memory.id
				const history = graph.memories
					.filter((m) => m.id !== memory.id && (m.rootMemoryId ?? m.id) === chain && m.version < memory.version)
					.sort((a, b) => b.version - a.version)
				const relations: Record<string, MemoryRelation> = {}
				for (const link of graph.links) if (link.fromId === memory.id) relations[link.toId] = link.relation
				return { memory, history, relations }
			})
			return { entries, total }
		},

		get: (scope: Scope, id: string) => storage.memories.get(scope, id),
		/** Every version of the memories' chains and the relations touching them. */
		graph: (scope: Scope, ids: string[]) => storage.memories.graph(scope, ids),

		/** Memories formed from a document, for GET /v3/documents/{id}. */
		ofDocument: (scope: Scope, documentId: string) => storage.memories.ofDocument(scope, documentId),
	}
}

export type MemoryService = ReturnType<typeof createMemoryService>
