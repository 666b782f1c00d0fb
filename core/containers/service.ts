import type { DocumentService } from '../documents/service.ts'
import type { Scope } from '../domain/types.ts'
import { badRequest, notFound, ServiceError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { JobQueue } from '../jobs/queue.ts'
import type { Logger } from '../logger.ts'
import type { ContainerTagPatch } from '../plugins/container-storage.ts'
import type { Storage } from '../plugins/storage.ts'
import { effectiveBuckets } from './buckets.ts'

const MAX_MERGE_SOURCES = 10

/** Container tags: listing, per-tag settings, deletion with all content, and merges (queued, run by a worker). */
export function createContainerService(deps: {
	storage: Storage
	documents: DocumentService
	queue: JobQueue
	logger: Logger
}) {
	const { storage, documents, queue } = deps

	async function settingsOf(scope: Scope, tag: string) {
		const own = await storage.containers.get(scope, tag)
		if (own) return own
		if ((await storage.containers.existing(scope, [tag])).length === 0) throw notFound('Container tag')
		const now = new Date().toISOString()
		return { containerTag: tag, name: null, entityContext: null, profileBuckets: [], createdAt: now, updatedAt: now }
	}

	return {
		list: (scope: Scope) => storage.containers.list(scope),

		get: settingsOf,

		/** Creates the settings row when the tag has none yet, so a tag can be configured before anything is ingested. */
		async update(scope: Scope, tag: string, patch: ContainerTagPatch) {
			const before = await storage.containers.get(scope, tag)
			const updated = await storage.containers.put(scope, tag, patch)
			const changed =
				patch.profileBuckets !== undefined &&
				JSON.stringify(patch.profileBuckets) !== JSON.stringify(before?.profileBuckets ?? [])
			if (changed) await queue.enqueueContainerJob({ kind: 'resort', orgId: scope.orgId, containerTag: tag })
			return updated
		},

		/** Deletes the pool's documents (chunks and files with them, memories through their sources) and settings. */
		async delete(scope: Scope, tag: string) {
			if ((await storage.containers.existing(scope, [tag])).length === 0) throw notFound('Container tag')
			const memories = await storage.containers.countMemories(scope, tag)
			const { deletedIds } = await documents.deleteMany(scope, { containerTags: [tag] })
			await storage.containers.deleteRest(scope, tag)
			return { deletedDocumentsCount: deletedIds.length, deletedMemoriesCount: memories }
		},

		async merge(scope: Scope, input: { containerTags: string[]; targetContainerTag: string }) {
			const target = input.targetContainerTag
			const sources = [...new Set(input.containerTags)]
			if (sources.length === 0 || sources.length > MAX_MERGE_SOURCES) {
				throw badRequest(`containerTags must name 1 to ${MAX_MERGE_SOURCES} source tags`)
			}
			if (sources.includes(target)) {
				throw badRequest(
					`containerTags must not include the targetContainerTag ("${target}"): a tag cannot merge into itself`,
				)
			}
			const found = new Set(await storage.containers.existing(scope, sources))
			const missing = sources.filter((tag) => !found.has(tag))
			if (missing.length > 0)
				throw new ServiceError(404, 'Container tag not found', `unknown containerTags: ${missing.join(', ')}`)
			const merge = await storage.containers.createMerge(scope, { id: newId(), targetTag: target, sourceTags: sources })
			await queue.enqueueContainerJob({ kind: 'merge', orgId: scope.orgId, mergeId: merge.id })
			return merge
		},

		async mergeStatus(scope: Scope, id: string) {
			const merge = await storage.containers.getMerge(scope, id)
			if (!merge) throw notFound('Merge')
			return merge
		},

		buckets: (scope: Scope, tag: string) => effectiveBuckets(storage, scope, tag),

		/** The organization's buckets changed: re-sort every tag's memories in the background. */
		async orgBucketsChanged(scope: Scope) {
			await queue.enqueueContainerJob({ kind: 'resort', orgId: scope.orgId, containerTag: null })
		},
	}
}

export type ContainerService = ReturnType<typeof createContainerService>
