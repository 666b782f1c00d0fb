import type { DocumentHeader, Scope } from '../domain/types.ts'
import type { Storage } from '../plugins/storage.ts'

/** The documents of the ids as search results show them: without their content when the store can leave it out. */
export function documentHeaders(storage: Storage, scope: Scope, ids: string[]): Promise<DocumentHeader[]> {
	return storage.documents.headers ? storage.documents.headers(scope, ids) : storage.documents.getMany(scope, ids)
}
