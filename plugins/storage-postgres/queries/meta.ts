import type { MetaStore } from '../../../core/index.ts'
import type { Db } from '../db.ts'

export function metaStore(db: () => Db): MetaStore {
	return {
		async get<T>(key: string) {
			const [row] = await db().query<{ value: T }>('SELECT value FROM meta WHERE key = $1', [key])
			return row?.value ?? null
		},
		async set(key, value) {
			await db().query(
				`INSERT INTO meta (key, value) VALUES ($1, $2::jsonb)
				ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
				[key, JSON.stringify(value ?? null)],
			)
		},
	}
}
