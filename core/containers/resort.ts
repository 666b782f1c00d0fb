import type { Scope } from '../domain/types.ts'
import type { Logger } from '../logger.ts'
import type { Storage } from '../plugins/storage.ts'
import { assignBuckets, type BucketSorter, effectiveBuckets } from './buckets.ts'

const BATCH = 500

/**
 * Re-sorts a container's latest memories into its current buckets (offline: similarity plus keywords), in batches by
 * id; memories whose buckets do not change are not written. With no tag, every tag of the organization.
 */
export async function resortBuckets(
	deps: { storage: Storage; sorter: BucketSorter; logger: Logger },
	scope: Scope,
	containerTag: string | null,
): Promise<number> {
	const tags = containerTag === null ? await deps.storage.containers.tagsWithMemories(scope) : [containerTag]
	let sorted = 0
	for (const tag of tags) {
		const prepared = await deps.sorter.prepare(await effectiveBuckets(deps.storage, scope, tag))
		let after: string | null = null
		for (;;) {
			const rows = await deps.storage.containers.bucketProbe(scope, tag, prepared.vectors, after, BATCH)
			if (rows.length === 0) break
			await deps.storage.containers.setBuckets(
				scope,
				rows.map((row) => ({ id: row.id, buckets: assignBuckets(prepared, row.memory, row.similarities) })),
			)
			sorted += rows.length
			after = rows.at(-1)!.id
			if (rows.length < BATCH) break
		}
	}
	deps.logger.debug('memories re-sorted into buckets', { orgId: scope.orgId, containerTag, sorted })
	return sorted
}
