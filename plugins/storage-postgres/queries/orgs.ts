import { newId, type OrgStore } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { type OrgRow, toOrg } from './rows.ts'

export function orgStore(db: () => Db): OrgStore {
	return {
		async create(name) {
			const [row] = await db().query<OrgRow>('INSERT INTO orgs (id, name) VALUES ($1, $2) RETURNING *', [newId(), name])
			return toOrg(row!)
		},
		async byName(name) {
			const [row] = await db().query<OrgRow>('SELECT * FROM orgs WHERE name = $1', [name])
			return row ? toOrg(row) : null
		},
		async byId(id) {
			const [row] = await db().query<OrgRow>('SELECT * FROM orgs WHERE id = $1', [id])
			return row ? toOrg(row) : null
		},
		async count() {
			const [row] = await db().query<{ count: number }>('SELECT count(*)::int AS count FROM orgs')
			return row!.count
		},
	}
}
