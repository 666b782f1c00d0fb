import type { Principal } from '../auth/verifier.ts'
import type { DocumentService } from '../documents/service.ts'
import type { DocumentSearch } from '../search/document-search.ts'

/** What route modules need; built once by the runtime. */
export interface RouteDeps {
	verify: (key: string) => Promise<Principal | null>
	documents: DocumentService
	documentSearch: DocumentSearch
}
