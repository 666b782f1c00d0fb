import type { Storage } from '../plugins/storage.ts'
import { hashApiKey } from './api-keys.ts'

export interface Principal {
	orgId: string
	orgName: string
	keyId: string
}

/**
 * Resolves bearer keys to their organization. Verified keys are cached briefly so a request costs no database
 * round trip; a revoked key therefore stops working within `cacheSeconds`.
 */
export function createKeyVerifier(storage: Storage, cacheSeconds: number) {
	const cache = new Map<string, { principal: Principal | null; until: number }>()
	return async function verify(key: string): Promise<Principal | null> {
		const hash = hashApiKey(key)
		const now = Date.now()
		const hit = cache.get(hash)
		if (hit && hit.until > now) return hit.principal
		const record = await storage.keys.byHash(hash)
		const principal = record ? { orgId: record.orgId, orgName: record.orgName, keyId: record.id } : null
		if (cache.size > 10_000) cache.clear()
		if (cacheSeconds > 0) cache.set(hash, { principal, until: now + cacheSeconds * 1000 })
		return principal
	}
}
