import type { ApiKey } from '../domain/types.ts'
import { randomBase62 } from '../ids.ts'
import type { Storage } from '../plugins/storage.ts'

/** A new API key: `sm_` and 40 base62 characters (~238 bits). Only its hash is ever stored. */
export function generateApiKey(): string {
	return `sm_${randomBase62(40)}`
}

/**
 * Keys are long random strings, so a fast hash is as safe as a slow one here (nothing to brute-force),
 * and it keeps per-request verification cheap.
 */
export function hashApiKey(key: string): string {
	return new Bun.CryptoHasher('sha256').update(key).digest('hex')
}

/** Creates a key for an organization, creating the organization when the name is new. Returns the key once. */
export async function createApiKey(
	storage: Storage,
	input: { name: string; orgName: string },
): Promise<{ key: string; id: string; orgId: string; orgName: string; orgCreated: boolean }> {
	const existing = await storage.orgs.byName(input.orgName)
	const org = existing ?? (await storage.orgs.create(input.orgName))
	const { key, record } = await createOrgKey(storage, { orgId: org.id, name: input.name })
	return { key, id: record.id, orgId: org.id, orgName: org.name, orgCreated: !existing }
}

/** Creates a key in an existing organization, optionally expiring and restricted to some container tags. */
export async function createOrgKey(
	storage: Storage,
	input: { orgId: string; name: string; expiresAt?: Date | null; containerTags?: string[] | null },
): Promise<{ key: string; record: ApiKey }> {
	const key = generateApiKey()
	const record = await storage.keys.create({ ...input, prefix: key.slice(0, 10), hash: hashApiKey(key) })
	return { key, record }
}

export const DEFAULT_ORG = 'default'

/** On the first start of an empty store, one key is created so the service is usable at once. */
export async function bootstrapFirstKey(storage: Storage): Promise<string | null> {
	if ((await storage.orgs.count()) > 0) return null
	const { key } = await createApiKey(storage, { name: 'first key', orgName: DEFAULT_ORG })
	return key
}
