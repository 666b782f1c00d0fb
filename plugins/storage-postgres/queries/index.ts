import type { Storage } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { type ChunkHooks, chunkStore } from './chunks.ts'
import { documentStore } from './documents.ts'
import { keyStore } from './keys.ts'
import { metaStore } from './meta.ts'
import { settingsStore, usageStore } from './organization.ts'
import { orgStore } from './orgs.ts'
import { searchStore } from './search.ts'

/** Every store of the Storage contract over one database (the job database is the driver's business). */
export function storesOver(db: () => Db, hooks: { chunks?: ChunkHooks } = {}): Omit<Storage, 'jobDatabase'> {
	return {
		orgs: orgStore(db),
		keys: keyStore(db),
		documents: documentStore(db),
		chunks: chunkStore(db, hooks.chunks),
		search: searchStore(db),
		meta: metaStore(db),
		settings: settingsStore(db),
		usage: usageStore(db),
	}
}

export { migrate } from './migrations.ts'
export { searchPlans } from './search-plans.ts'
