import { type KeyStore, newId } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { type ApiKeyRow, toApiKey, toApiKeyWithOrg } from './rows.ts'

type KeyWithOrgRow = ApiKeyRow & { org_name: string }

const SELECT_WITH_ORG = 'SELECT k.*, o.name AS org_name FROM api_keys k JOIN orgs o ON o.id = k.org_id'

export function keyStore(db: () => Db): KeyStore {
	return {
		async create({ orgId, name, prefix, hash }) {
			const [row] = await db().query<ApiKeyRow>(
				'INSERT INTO api_keys (id, org_id, name, prefix, hash) VALUES ($1, $2, $3, $4, $5) RETURNING *',
				[newId(), orgId, name, prefix, hash],
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
		async revoke(id) {
			const rows = await db().query(
				'UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id',
				[id],
			)
			return rows.length > 0
		},
	}
}
