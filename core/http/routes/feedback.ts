import { Elysia, t } from 'elysia'
import { requireUnrestricted } from '../../auth/restriction.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { DateTime, errorResponses, Pagination } from '../schemas/common.ts'

const Text = (maxLength: number) => t.Optional(t.String({ maxLength }))

const FeedbackEntry = t.Object({
	id: t.String(),
	type: t.UnionEnum(['bug', 'feature_request', 'docs', 'other']),
	title: t.String(),
	description: t.String(),
	endpoint: Text(200),
	requestId: Text(200),
	expected: Text(2000),
	actual: Text(2000),
	client: Text(200),
	contactEmail: Text(320),
	keyId: t.String({ description: 'The key that sent it' }),
	createdAt: DateTime,
})

/** Not part of the published API: the feedback reports the organization sent through v5, for the console. */
export function feedbackListRoutes({ verify, feedback }: RouteDeps) {
	return new Elysia().use(bearerAuth(verify)).get(
		'/v3/feedback',
		async ({ query, scope, principal }) => {
			requireUnrestricted(principal, "reading the organization's feedback")
			const page = query.page ?? 1
			const limit = query.limit ?? 20
			const { feedback: entries, total } = await feedback.list(scope, { page, limit })
			return {
				feedback: entries.map(({ orgId: _org, createdAt, ...entry }) => ({
					...entry,
					createdAt: createdAt.toISOString(),
				})),
				pagination: { currentPage: page, limit, totalItems: total, totalPages: Math.ceil(total / limit) },
			}
		},
		{
			query: t.Object({
				page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000, error: 'must be a whole number from 1' })),
				limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, error: 'must be a whole number from 1 to 100' })),
			}),
			response: {
				200: t.Object({
					feedback: t.Array(FeedbackEntry),
					pagination: Pagination,
				}),
				...errorResponses,
			},
			detail: { tags: ['feedback'], summary: 'Feedback reports sent through v5 POST /feedback, newest first' },
		},
	)
}
