import { Elysia } from 'elysia'
import { ServiceError } from '../../errors.ts'
import { assertRequestStorable } from '../guards/text-rule.ts'
import { FeedbackBody } from './schemas.ts'
import { V5_TAGS } from './tags.ts'

/**
 * POST /feedback: the hosted service forwards reports to its team; a self-hosted deployment has no such channel, so
 * a valid report is answered with v5's declared 503 (auth is optional on this route).
 */
export function feedbackRoutes() {
	return new Elysia().post(
		'/feedback',
		() => {
			throw new ServiceError(503, 'Service unavailable', 'feedback is not available on this deployment', {
				'retry-after': '86400',
			})
		},
		{
			// Text no field may hold (NUL, lone surrogates) is named before the schema's rules, as on every other route.
			transform: ({ body }) => assertRequestStorable({ body }),
			body: FeedbackBody,
			detail: {
				tags: [V5_TAGS.feedback],
				operationId: 'postFeedback',
				summary: 'Feedback is not collected by a self-hosted deployment (503)',
				security: [{}, { bearerAuth: [] }],
			},
		},
	)
}
