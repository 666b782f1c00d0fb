import type { Storage } from '../plugins/storage.ts'
import { hashApiKey } from './api-keys.ts'

export interface Principal {
	orgId: string
	orgName: string
	keyId: string
	/** The only container tags this key may read and write; null is unrestricted. */
	containerTags: string[] | null
}

export interface KeyVerifier {
	(key: string): Promise<Principal | null>
	/** Drops a key from the cache, so its revocation in this process takes effect at once. */
	forget(keyId: string): void
}

/**
 * Resolves bearer keys to their organization. Verified keys are cached briefly so a request costs no database
 * round trip; a key revoked elsewhere therefore stops working within `cacheSeconds`. Expired keys are refused
 * (a cached key no later than its expiry). A key's last use is recorded when it is looked up, so at most once per
 * cache period.
 */
export function createKeyVerifier(storage: Storage, cacheSeconds: number): KeyVerifier {
	const cache = new Map<string, { principal: Principal | null; until: number }>()
	const verify = async (key: string): Promise<Principal | null> => {
		const hash = hashApiKey(key)
		const now = Date.now()
		const hit = cache.get(hash)
		if (hit && hit.until > now) return hit.principal
		const record = await storage.keys.byHash(hash)
		const expiresAt = record?.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY
		const live = record && expiresAt > now ? record : null
		const principal = live
			? { orgId: live.orgId, orgName: live.orgName, keyId: live.id, containerTags: live.containerTags }
			: null
		if (live) storage.keys.touch(live.id).catch(() => {})
		if (cache.size > 10_000) cache.clear()
		if (cacheSeconds > 0) cache.set(hash, { principal, until: Math.min(now + cacheSeconds * 1000, expiresAt) })
		return principal
	}
	return Object.assign(verify, {
		forget(keyId: string) {
			for (const [hash, entry] of cache) if (entry.principal?.keyId === keyId) cache.delete(hash)
		},
	})
}
