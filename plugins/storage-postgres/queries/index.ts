import type { Storage } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { type ChunkHooks, chunkStore } from './chunks.ts'
import { connectionStore } from './connections.ts'
import { containerStore } from './containers.ts'
import { documentStore } from './documents.ts'
import { feedbackStore } from './feedback.ts'
import { keyStore } from './keys.ts'
import { type MemoryHooks, memoryStore } from './memories.ts'
import { metaStore } from './meta.ts'
import { settingsStore, usageStore } from './organization.ts'
import { orgStore } from './orgs.ts'
import { searchStore } from './search.ts'

/** Every store of the Storage contract over one database (the job database is the driver's business). */
export function storesOver(
	db: () => Db,
	hooks: { chunks?: ChunkHooks; memories?: MemoryHooks } = {},
): Omit<Storage, 'jobDatabase'> {
	return {
		orgs: orgStore(db),
		keys: keyStore(db),
		documents: documentStore(db),
		chunks: chunkStore(db, hooks.chunks),
		search: searchStore(db),
		meta: metaStore(db),
		memories: memoryStore(db, hooks.memories),
		settings: settingsStore(db),
		usage: usageStore(db),
		containers: containerStore(db),
		connections: connectionStore(db),
		feedback: feedbackStore(db),
	}
}

export { formationReadPlan, memoryPlans } from './memory-plans.ts'
export { migrate } from './migrations.ts'
export { searchPlans } from './search-plans.ts'
