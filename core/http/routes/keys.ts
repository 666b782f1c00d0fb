import { Elysia, t } from 'elysia'
import { requireUnrestricted } from '../../auth/restriction.ts'
import type { ApiKey } from '../../domain/types.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import { CreatedKey, CreateKeyBody, CurrentKey, KeyList, RevokedKey } from '../schemas/keys.ts'

const detail = { tags: ['keys'] }

function keyView(key: ApiKey) {
	return {
		id: key.id,
		name: key.name,
		prefix: key.prefix,
		createdAt: key.createdAt.toISOString(),
		lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
		expiresAt: key.expiresAt?.toISOString() ?? null,
		containerTags: key.containerTags,
		expired: key.expiresAt !== null && key.expiresAt.getTime() <= Date.now(),
	}
}

/** Not part of the published API: the organization's API keys. Only an unrestricted key manages them. */
export function keyRoutes({ verify, keys }: RouteDeps) {
	return new Elysia({ prefix: '/v3/keys' })
		.use(bearerAuth(verify))
		.get('/current', ({ principal }) => principal, {
			response: { 200: CurrentKey, ...errorResponses },
			detail: { ...detail, summary: 'The organization of the key making the request, and its restriction' },
		})
		.get(
			'',
			async ({ principal }) => {
				requireUnrestricted(principal, 'managing API keys')
				return { keys: (await keys.list(principal.orgId)).map(keyView) }
			},
			{
				response: { 200: KeyList, ...errorResponses },
				detail: {
					...detail,
					summary: "The organization's active keys: prefix, name, created, last used, expiry, scope",
				},
			},
		)
		.post(
			'',
			async ({ body, principal, set }) => {
				requireUnrestricted(principal, 'managing API keys')
				const { key, record } = await keys.create(principal.orgId, body)
				set.status = 201
				return { ...keyView(record), key }
			},
			{
				body: CreateKeyBody,
				response: { 201: CreatedKey, ...errorResponses },
				detail: {
					...detail,
					summary: 'Create a key (optionally expiring, optionally restricted to container tags); the key is shown once',
				},
			},
		)
		.delete(
			'/:keyId',
			async ({ params, principal }) => {
				requireUnrestricted(principal, 'managing API keys')
				await keys.revoke(principal.orgId, params.keyId)
				return { id: params.keyId, revoked: true as const }
			},
			{
				params: t.Object({ keyId: t.String({ minLength: 1, maxLength: 100 }) }),
				response: { 200: RevokedKey, ...errorResponses },
				detail: { ...detail, summary: 'Revoke a key: it is refused from then on' },
			},
		)
}
