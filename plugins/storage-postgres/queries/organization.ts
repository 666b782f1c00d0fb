import type { Quota, SettingsStore, UsageEntry, UsageStore } from '../../../core/index.ts'
import type { Db } from '../db.ts'

export function settingsStore(db: () => Db): SettingsStore {
	return {
		async get(orgId) {
			const [row] = await db().query<{ settings: Record<string, unknown> }>(
				'SELECT settings FROM org_settings WHERE org_id = $1',
				[orgId],
			)
			return row?.settings ?? {}
		},
		async put(orgId, settings) {
			await db().query(
				`INSERT INTO org_settings (org_id, settings) VALUES ($1, $2::jsonb)
				ON CONFLICT (org_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`,
				[orgId, JSON.stringify(settings)],
			)
		},
	}
}

export function usageStore(db: () => Db): UsageStore {
	return {
		async add(entries) {
			if (entries.length === 0) return
			// One statement for the whole flush; same-key entries are summed first (ON CONFLICT may not touch a row twice).
			const merged = new Map<string, UsageEntry>()
			for (const entry of entries) {
				const key = `${entry.orgId}\u0000${entry.metric}\u0000${entry.day}`
				const seen = merged.get(key)
				merged.set(key, seen ? { ...seen, amount: seen.amount + entry.amount } : { ...entry })
			}
			const rows = [...merged.values()]
			await db().query(
				`INSERT INTO usage_counters (org_id, metric, day, amount)
				SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::bigint[])
				ON CONFLICT (org_id, metric, day) DO UPDATE SET amount = usage_counters.amount + EXCLUDED.amount`,
				[
					rows.map((r) => r.orgId),
					rows.map((r) => r.metric),
					rows.map((r) => r.day),
					rows.map((r) => String(r.amount)),
				],
			)
		},
		async daily(orgId, since) {
			const rows = await db().query<{ metric: string; day: string; amount: string }>(
				`SELECT metric, to_char(day, 'YYYY-MM-DD') AS day, amount::text AS amount
				FROM usage_counters WHERE org_id = $1 AND day >= $2::date ORDER BY day, metric`,
				[orgId, since],
			)
			return rows.map((row) => ({ orgId, metric: row.metric, day: row.day, amount: Number(row.amount) }))
		},
		async quotas(orgId) {
			const rows = await db().query<{ metric: string; period: Quota['period']; max_amount: string }>(
				'SELECT metric, period, max_amount::text AS max_amount FROM org_quotas WHERE org_id = $1 ORDER BY metric',
				[orgId],
			)
			return rows.map((row) => ({ metric: row.metric, period: row.period, max: Number(row.max_amount) }))
		},
		async setQuota(orgId, metric, quota) {
			if (!quota) {
				await db().query('DELETE FROM org_quotas WHERE org_id = $1 AND metric = $2', [orgId, metric])
				return
			}
			await db().query(
				`INSERT INTO org_quotas (org_id, metric, period, max_amount) VALUES ($1, $2, $3, $4)
				ON CONFLICT (org_id, metric) DO UPDATE SET period = EXCLUDED.period, max_amount = EXCLUDED.max_amount`,
				[orgId, metric, quota.period, String(quota.max)],
			)
		},
	}
}
