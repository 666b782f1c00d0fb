import type { Scope } from '../domain/types.ts'
import { ServiceError } from '../errors.ts'
import { randomBase62 } from '../ids.ts'
import type { FeedbackReport } from '../plugins/feedback-storage.ts'
import type { Storage } from '../plugins/storage.ts'

/** Reports an organization may send a UTC day, as the hosted service allows. */
export const FEEDBACK_PER_DAY = 3

/** Seconds until the next 00:00 UTC, when the day's allowance comes back. */
export function secondsToUtcMidnight(now = new Date()): number {
	const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)
	return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000))
}

/** Feedback reports (v5 POST /feedback): stored per organization, a few a day, read in the console. */
export function createFeedbackService({ storage, perDay = FEEDBACK_PER_DAY }: { storage: Storage; perDay?: number }) {
	return {
		async submit(scope: Scope, keyId: string, report: FeedbackReport): Promise<{ id: string; remaining: number }> {
			const id = `fb_${randomBase62(10).toLowerCase()}`
			const stored = await storage.feedback.add(scope.orgId, { ...report, id, keyId }, perDay)
			if (!stored) {
				const wait = secondsToUtcMidnight()
				throw new ServiceError(
					429,
					'Too many requests',
					`at most ${perDay} feedback reports a day per organization; try again after 00:00 UTC`,
					{ 'retry-after': String(wait) },
				)
			}
			return { id: stored.feedback.id, remaining: stored.remaining }
		},

		list(scope: Scope, page: { page: number; limit: number }) {
			return storage.feedback.list(scope.orgId, { limit: page.limit, offset: (page.page - 1) * page.limit })
		},
	}
}

export type FeedbackService = ReturnType<typeof createFeedbackService>
