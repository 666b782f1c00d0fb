import { Elysia } from 'elysia'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { documented, FeedbackAccepted } from './responses.ts'
import { FeedbackBody } from './schemas.ts'
import { V5_TAGS } from './tags.ts'

/**
 * POST /feedback: the report is stored for the organization (the console lists it), at most a few a UTC day per
 * organization (429 with Retry-After). A self-hosted deployment has no organization for a request without a key, so
 * the key v5 makes optional is required here (401).
 */
export function feedbackRoutes({ verify, feedback }: RouteDeps) {
	return new Elysia().use(bearerAuth(verify)).post(
		'/feedback',
		async ({ body, scope, principal, set }) => {
			set.status = 202
			return feedback.submit(scope, principal.keyId, body)
		},
		{
			body: FeedbackBody,
			detail: {
				tags: [V5_TAGS.feedback],
				operationId: 'postFeedback',
				...documented(202, FeedbackAccepted, 'Report stored'),
				summary: 'Send a bug, feature, docs or other report (stored for the organization; 3 a UTC day)',
			},
		},
	)
}
