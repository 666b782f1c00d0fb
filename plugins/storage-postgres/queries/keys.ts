import { type KeyStore, newId } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { type ApiKeyRow, toApiKey, toApiKeyWithOrg } from './rows.ts'

type KeyWithOrgRow = ApiKeyRow & { org_name: string }

const SELECT_WITH_ORG = 'SELECT k.*, o.name AS org_name FROM api_keys k JOIN orgs o ON o.id = k.org_id'

export function keyStore(db: () => Db): KeyStore {
	return {
		async create({ orgId, name, prefix, hash, expiresAt = null, containerTags = null }) {
			const [row] = await db().query<ApiKeyRow>(
				`INSERT INTO api_keys (id, org_id, name, prefix, hash, expires_at, container_tags)
				VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
				[newId(), orgId, name, prefix, hash, expiresAt, containerTags],
			)
			return toApiKey(row!)
		},
		async byHash(hash) {
			const [row] = await db().query<KeyWithOrgRow>(`${SELECT_WITH_ORG} WHERE k.hash = $1 AND k.revoked_at IS NULL`, [
				hash,
			])
			return row ? toApiKeyWithOrg(row) : null
		},
		async list() {
			const rows = await db().query<KeyWithOrgRow>(`${SELECT_WITH_ORG} ORDER BY k.created_at, k.id`)
			return rows.map(toApiKeyWithOrg)
		},
		async listForOrg(orgId) {
			const rows = await db().query<ApiKeyRow>(
				'SELECT * FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL ORDER BY created_at, id',
				[orgId],
			)
			return rows.map(toApiKey)
		},
		async revoke(id, orgId) {
			const rows = await db().query(
				`UPDATE api_keys SET revoked_at = now()
				WHERE id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR org_id = $2) RETURNING id`,
				[id, orgId ?? null],
			)
			return rows.length > 0
		},
		async touch(id) {
			await db().query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [id])
		},
	}
}
