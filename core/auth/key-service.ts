import type { ApiKey } from '../domain/types.ts'
import { badRequest, notFound } from '../errors.ts'
import type { Storage } from '../plugins/storage.ts'
import { createOrgKey } from './api-keys.ts'
import type { KeyVerifier } from './verifier.ts'

const DAY_MS = 86_400_000

export interface NewKeyInput {
	name: string
	expiresAt?: string
	expiresInDays?: number
	containerTags?: string[]
}

/** An organization's API keys over HTTP: create (the key is returned once), list, revoke. */
export function createKeyService({ storage, verifier }: { storage: Storage; verifier: KeyVerifier }) {
	return {
		async create(orgId: string, input: NewKeyInput): Promise<{ key: string; record: ApiKey }> {
			if (input.expiresAt !== undefined && input.expiresInDays !== undefined) {
				throw badRequest('give expiresAt or expiresInDays, not both')
			}
			let expiresAt: Date | null = null
			if (input.expiresAt !== undefined) {
				const time = Date.parse(input.expiresAt)
				if (Number.isNaN(time)) throw badRequest('expiresAt must be an ISO 8601 date-time')
				if (time <= Date.now()) throw badRequest('expiresAt must be in the future')
				expiresAt = new Date(time)
			}
			if (input.expiresInDays !== undefined) expiresAt = new Date(Date.now() + input.expiresInDays * DAY_MS)
			const tags = input.containerTags ? [...new Set(input.containerTags)] : null
			return createOrgKey(storage, { orgId, name: input.name.trim(), expiresAt, containerTags: tags })
		},

		list: (orgId: string) => storage.keys.listForOrg(orgId),

		async revoke(orgId: string, id: string): Promise<void> {
			if (!(await storage.keys.revoke(id, orgId))) throw notFound('API key')
			verifier.forget(id)
		},
	}
}

export type KeyService = ReturnType<typeof createKeyService>
