import type { KeyService } from '../auth/key-service.ts'
import type { Principal } from '../auth/verifier.ts'
import type { ProfileService } from '../containers/profile.ts'
import type { ContainerService } from '../containers/service.ts'
import type { DocumentService } from '../documents/service.ts'
import type { FileService } from '../files/service.ts'
import type { MemoryService } from '../memory/service.ts'
import type { DocumentSearch } from '../search/document-search.ts'
import type { MemorySearch } from '../search/memory-search.ts'
import type { SettingsService } from '../settings/service.ts'
import type { UsageMeter } from '../usage/meter.ts'

/** What route modules need; built once by the runtime. */
export interface RouteDeps {
	/** Verifies a key and applies its rate limit (throws 429). */
	verify: (key: string) => Promise<Principal | null>
	documents: DocumentService
	/** Uploads, originals and their signed URLs. */
	files: FileService
	documentSearch: DocumentSearch
	settings: SettingsService
	usage: UsageMeter
	/** Memory entries: write, list, version, forget (v4). */
	memories: MemoryService
	memorySearch: MemorySearch
	/** Container tags: settings, delete, merge, effective buckets. */
	containers: ContainerService
	profiles: ProfileService
	/** The organization's API keys (create, list, revoke). */
	keys: KeyService
}
