import { Elysia, t } from 'elysia'
import { requireUnrestricted } from '../../auth/restriction.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'

const UsageReport = t.Object({
	orgId: t.String(),
	since: t.String(),
	totals: t.Record(t.String(), t.Number()),
	daily: t.Array(t.Object({ metric: t.String(), day: t.String(), amount: t.Number() })),
	quotas: t.Array(t.Object({ metric: t.String(), period: t.String(), max: t.Number() })),
})

/** Not part of the published API: the organization's usage counters and quotas. */
export function usageRoutes({ verify, usage }: RouteDeps) {
	return new Elysia().use(bearerAuth(verify)).get(
		'/v3/usage',
		async ({ query, scope, principal }) => {
			requireUnrestricted(principal, "reading the organization's usage")
			const since = query.since ?? `${new Date().toISOString().slice(0, 8)}01`
			return { orgId: scope.orgId, since, ...(await usage.report(scope.orgId, since)) }
		},
		{
			query: t.Object({
				since: t.Optional(
					t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', error: 'must be a date like 2026-11-01', format: 'date' }),
				),
			}),
			response: { 200: UsageReport, ...errorResponses },
			detail: {
				tags: ['usage'],
				summary: 'Usage counters (documents, characters, searches, profiles) per day since a date, and quotas',
			},
		},
	)
}
