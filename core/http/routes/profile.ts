import { Elysia } from 'elysia'
import { assertTagAllowed } from '../../auth/restriction.ts'
import { bearerAuth } from '../auth.ts'
import { parseQueryFilter } from '../filter-input.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import { ProfileBody, ProfileBucketsBody, ProfileBucketsResponse, ProfileResponse } from '../schemas/containers.ts'
import { searchResult } from '../serialize-memory.ts'

/** POST /v4/profile and POST /v4/profile/buckets. */
export function profileRoutes({ verify, usage, profiles, containers }: RouteDeps) {
	return new Elysia()
		.use(bearerAuth(verify))
		.post(
			'/v4/profile',
			async ({ body, scope, principal }) => {
				assertTagAllowed(principal, body.containerTag)
				const filters = body.filters === undefined ? undefined : parseQueryFilter(body.filters)
				if (body.q !== undefined) await usage.assertWithinQuota(scope.orgId, 'searches')
				const answer = await profiles.profile(scope, { ...body, filters })
				usage.record(scope.orgId, 'profiles')
				if (!answer.search) return { profile: answer.profile }
				usage.record(scope.orgId, 'searches')
				const results = answer.search.hits.map((hit) => searchResult(hit, { documents: false, summaries: false }))
				return {
					profile: answer.profile,
					searchResults: { results, total: results.length, timing: answer.search.timing },
				}
			},
			{
				body: ProfileBody,
				response: { 200: ProfileResponse, ...errorResponses },
				detail: {
					tags: ['profile'],
					summary:
						'Entity profile: static facts (<=50), recent dynamic memories (<=20), buckets (<=20 each); q adds a memory search (<=10 results)',
				},
			},
		)
		.post(
			'/v4/profile/buckets',
			async ({ body, scope, principal }) => {
				assertTagAllowed(principal, body.containerTag)
				return { buckets: await containers.buckets(scope, body.containerTag) }
			},
			{
				body: ProfileBucketsBody,
				response: { 200: ProfileBucketsResponse, ...errorResponses },
				detail: {
					tags: ['profile'],
					summary: "Effective buckets of a container: the organization's plus the tag's own",
				},
			},
		)
}
