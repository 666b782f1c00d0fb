import type { Principal } from '../auth/verifier.ts'
import type { DocumentService } from '../documents/service.ts'
import type { DocumentSearch } from '../search/document-search.ts'
import type { SettingsService } from '../settings/service.ts'
import type { UsageMeter } from '../usage/meter.ts'

/** What route modules need; built once by the runtime. */
export interface RouteDeps {
	/** Verifies a key and applies its rate limit (throws 429). */
	verify: (key: string) => Promise<Principal | null>
	documents: DocumentService
	documentSearch: DocumentSearch
	settings: SettingsService
	usage: UsageMeter
}
