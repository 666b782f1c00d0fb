import { ServiceError } from '../errors.ts'
import type { Logger } from '../logger.ts'
import type { Quota, Storage, UsageEntry } from '../plugins/storage.ts'

export const USAGE_METRICS = ['documents', 'characters', 'searches', 'profiles'] as const
export type UsageMetric = (typeof USAGE_METRICS)[number]

const day = (date: Date) => date.toISOString().slice(0, 10)
const periodStart = (period: Quota['period'], now: Date) => (period === 'day' ? day(now) : `${day(now).slice(0, 8)}01`)

/**
 * Counts usage per organization. Increments are kept in memory and written in one statement per flush (every
 * `flushMs` and at stop), so the hot path never waits on a write; quota checks add what is not flushed yet.
 */
export function createUsageMeter(deps: { storage: Storage; logger: Logger; flushMs?: number; quotaCacheMs?: number }) {
	const { storage, logger } = deps
	const pending = new Map<string, UsageEntry>()
	const quotaCache = new Map<string, { quotas: Quota[]; totals: Map<string, number>; until: number }>()

	/** Entries being written: still counted by quota checks until the write is done. */
	let writing: UsageEntry[] = []
	let written: Promise<void> | null = null

	async function flush() {
		while (written) await written
		if (pending.size === 0) return
		writing = [...pending.values()]
		pending.clear()
		written = write(writing).finally(() => {
			writing = []
			written = null
		})
		await written
	}

	async function write(entries: UsageEntry[]) {
		try {
			await storage.usage.add(entries)
			// Cached totals were read before this write: read them again, now that they hold these entries.
			for (const entry of entries) quotaCache.delete(entry.orgId)
		} catch (error) {
			// Keep the counts for the next flush rather than losing them.
			for (const entry of entries) record(entry.orgId, entry.metric as UsageMetric, entry.amount, entry.day)
			logger.warn('usage flush failed', { error: String(error) })
		}
	}
	const timer = setInterval(() => void flush(), deps.flushMs ?? 1000)
	timer.unref?.()

	function record(orgId: string, metric: UsageMetric, amount = 1, today = day(new Date())) {
		if (amount <= 0) return
		const key = `${orgId}\u0000${metric}\u0000${today}`
		const entry = pending.get(key)
		if (entry) entry.amount += amount
		else pending.set(key, { orgId, metric, day: today, amount })
	}

	function unflushed(orgId: string, metric: string, since: string): number {
		let total = 0
		for (const entry of [...pending.values(), ...writing]) {
			if (entry.orgId === orgId && entry.metric === metric && entry.day >= since) total += entry.amount
		}
		return total
	}

	async function quotaState(orgId: string) {
		const cached = quotaCache.get(orgId)
		if (cached && cached.until > Date.now()) return cached
		const quotas = await storage.usage.quotas(orgId)
		const totals = new Map<string, number>()
		if (quotas.length > 0) {
			const now = new Date()
			const earliest = quotas.map((q) => periodStart(q.period, now)).sort()[0]!
			const rows = await storage.usage.daily(orgId, earliest)
			for (const quota of quotas) {
				const since = periodStart(quota.period, now)
				const used = rows
					.filter((r) => r.metric === quota.metric && r.day >= since)
					.reduce((sum, r) => sum + r.amount, 0)
				totals.set(quota.metric, used)
			}
		}
		const state = { quotas, totals, until: Date.now() + (deps.quotaCacheMs ?? 2000) }
		quotaCache.set(orgId, state)
		return state
	}

	return {
		record,

		/** Throws 402 when the organization has used up its quota of `metric` for the current period. */
		async assertWithinQuota(orgId: string, metric: UsageMetric): Promise<void> {
			const { quotas, totals } = await quotaState(orgId)
			const quota = quotas.find((q) => q.metric === metric)
			if (!quota) return
			const used = (totals.get(metric) ?? 0) + unflushed(orgId, metric, periodStart(quota.period, new Date()))
			if (used >= quota.max) {
				throw new ServiceError(
					402,
					'Quota exhausted',
					`the organization has used ${used} of its ${quota.max} ${metric} for this ${quota.period}`,
				)
			}
		},

		/** Usage from `since` (YYYY-MM-DD) on, including what is not flushed yet, with the quotas. */
		async report(orgId: string, since: string) {
			await flush()
			const [rows, quotas] = await Promise.all([storage.usage.daily(orgId, since), storage.usage.quotas(orgId)])
			const totals = Object.fromEntries(USAGE_METRICS.map((metric) => [metric, 0])) as Record<string, number>
			for (const row of rows) totals[row.metric] = (totals[row.metric] ?? 0) + row.amount
			return { totals, daily: rows.map(({ orgId: _, ...row }) => row), quotas }
		},

		invalidate(orgId: string) {
			quotaCache.delete(orgId)
		},

		flush,

		async stop() {
			clearInterval(timer)
			await flush()
		},
	}
}

export type UsageMeter = ReturnType<typeof createUsageMeter>
