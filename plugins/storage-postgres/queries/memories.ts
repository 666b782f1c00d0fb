import type { FormationResult, MemoryStore } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { CommonWords } from './common-words.ts'
import { recordLines, repeatedLines } from './document-lines.ts'
import { LargeScopes } from './large-scopes.ts'
import {
	formationState,
	formingDocuments,
	inPipeline,
	markDreamed,
	pendingAgeSeconds,
	pendingContainers,
	pendingDocuments,
} from './memory-dreaming.ts'
import { formMemories, LargeContainers } from './memory-form.ts'
import {
	findMemoryByContent,
	forgetMemories,
	getMemories,
	listMemories,
	memoriesOfDocument,
	memoryGraph,
} from './memory-read.ts'
import { memoriesByText, memoriesByVector, sampleMemoryVectors } from './memory-search.ts'

export interface MemoryHooks {
	/** Called with the number of memories a formation wrote. */
	written?(count: number): Promise<void>
}

export function memoryStore(db: () => Db, hooks: MemoryHooks = {}): MemoryStore {
	const large = new LargeContainers()
	const largeScopes = new LargeScopes()
	const commonWords = new CommonWords(db, 'memories')
	const written = async (results: FormationResult[] | null) => {
		const count = (results ?? []).reduce((sum, result) => sum + result.created.length, 0)
		if (count > 0) await hooks.written?.(count)
	}
	return {
		async form(scope, containerTag, guard, probe, decide) {
			const results = await formMemories(
				db(),
				scope,
				containerTag,
				guard ? [guard] : null,
				probe,
				async (context) => [await decide(context)],
				large,
			)
			await written(results)
			return results?.[0] ?? null
		},
		async formMany(scope, containerTag, guards, probe, decide) {
			const results = await formMemories(db(), scope, containerTag, guards, probe, decide, large)
			await written(results)
			return results ?? []
		},
		get: async (scope, id) => (await getMemories(db(), scope, [id]))[0] ?? null,
		getMany: (scope, ids) => getMemories(db(), scope, ids),
		findByContent: (scope, containerTag, content) => findMemoryByContent(db(), scope, containerTag, content),
		list: (scope, query) => listMemories(db(), scope, query),
		graph: (scope, ids) => memoryGraph(db(), scope, ids),
		ofDocument: (scope, documentId) => memoriesOfDocument(db(), scope, documentId),
		forget: (scope, containerTag, ids, how) => forgetMemories(db(), scope, containerTag, ids, how),
		sampleVectors: (scope, containerTags, count) => sampleMemoryVectors(db(), scope, containerTags, count),
		searchByVector: (scope, query) => memoriesByVector(db(), scope, query),
		searchByText: (scope, query) => memoriesByText(db(), scope, query, largeScopes, commonWords),
		formingDocuments: (scope, containerTags, limit) => formingDocuments(db(), scope, containerTags, limit),
		formationState: (documentId) => formationState(db(), documentId),
		pendingContainers: (limit) => pendingContainers(db(), limit),
		pendingDocuments: (orgId, containerTag, limit) => pendingDocuments(db(), orgId, containerTag, limit),
		inPipeline: (orgId, containerTag) => inPipeline(db(), orgId, containerTag),
		pendingAgeSeconds: (orgId, containerTag) => pendingAgeSeconds(db(), orgId, containerTag),
		markDreamed: (documentId, contentHash, stage) => markDreamed(db(), documentId, contentHash, stage),
		recordLines: (documentId, fingerprints) => recordLines(db(), documentId, fingerprints),
		repeatedLines: (scope, containerTag, fingerprints, minDocuments) =>
			repeatedLines(db(), scope, containerTag, fingerprints, minDocuments),
	}
}
