import { Elysia, t } from 'elysia'
import type { CallbackOutcome } from '../../connectors/authorize.ts'
import { clearBinding } from '../../connectors/browser-binding.ts'
import { readWebhookBody } from '../../connectors/webhooks.ts'
import { createRateLimiter } from '../../usage/rate-limiter.ts'
import { clientAddress } from '../client-address.ts'
import type { RouteDeps } from '../route-deps.ts'
import { ErrorResponse } from '../schemas/common.ts'

const detail = { tags: ['connections'], security: [] }

/** Where the user lands after the provider: the app's redirectUrl with the outcome, or JSON without one. */
function answer(outcome: CallbackOutcome): Response {
	const connection = outcome.connection
	const cleared = connection ? { 'set-cookie': clearBinding(connection.provider, connection.id) } : {}
	if (connection?.redirectUrl) {
		const target = new URL(connection.redirectUrl)
		target.searchParams.set('connectionId', connection.id)
		target.searchParams.set('provider', connection.provider)
		if (!outcome.ok) target.searchParams.set('error', outcome.error)
		return new Response(null, { status: 302, headers: { location: target.toString(), ...cleared } })
	}
	const body = outcome.ok
		? { success: true, connectionId: connection!.id, provider: connection!.provider }
		: { error: 'Authorization failed', details: outcome.error }
	return new Response(JSON.stringify(body), {
		status: outcome.ok ? 200 : 400,
		headers: { 'content-type': 'application/json', ...cleared },
	})
}

/**
 * The connection routes without an API key: the authorization link (which binds the browser that opens it), the
 * OAuth callback (its sealed, single-use state names the organization and the connection; only that browser may bring
 * it) and each provider's webhook endpoint (verified by the provider's signature).
 */
export function connectionCallbackRoutes({
	oauthStart,
	oauthCallback,
	webhooks,
	webhookBodyLimit,
	refuseUnroutedWebhook,
	webhookRateLimitPerMinute,
}: RouteDeps) {
	const limitSource = createRateLimiter(webhookRateLimitPerMinute, Date.now, 'a source address on the webhook routes')
	return new Elysia({ prefix: '/v3/connections' })
		.get(
			'/auth/start/:provider',
			({ params, query }) => {
				const start = oauthStart(params.provider, query.link)
				return new Response(null, {
					status: 302,
					headers: { location: start.location, 'set-cookie': start.cookie, 'cache-control': 'no-store' },
				})
			},
			{
				query: t.Object({ link: t.String({ minLength: 1, maxLength: 8192 }) }),
				response: { 400: ErrorResponse, 404: ErrorResponse },
				detail: {
					...detail,
					summary:
						"The authLink a connection's create answers: ties the authorization to this browser (a short-lived cookie), then redirects to the provider",
				},
			},
		)
		.get(
			'/auth/callback/:provider',
			async ({ params, query, request }) =>
				answer(await oauthCallback(params.provider, query, request.headers.get('cookie'))),
			{
				query: t.Object(
					{
						state: t.Optional(t.String()),
						code: t.Optional(t.String()),
						error: t.Optional(t.String()),
						error_description: t.Optional(t.String()),
					},
					{ additionalProperties: true },
				),
				response: { 400: ErrorResponse, 404: ErrorResponse },
				detail: {
					...detail,
					summary:
						"OAuth redirect target: completes the authorization, then redirects to the connection's redirectUrl (connectionId, provider, error on failure)",
				},
			},
		)
		.post(
			'/webhooks/:provider',
			async ({ params, request, set }) => {
				limitSource(clientAddress(request))
				const limit = webhookBodyLimit(params.provider)
				const routed = await refuseUnroutedWebhook(params.provider, request.headers)
				const outcome = await webhooks(
					params.provider,
					{
						headers: request.headers,
						body: await readWebhookBody(params.provider, request, limit),
						query: new URL(request.url).searchParams,
						url: request.url,
					},
					routed,
				)
				if (outcome instanceof Response) return outcome
				set.status = 202
				return outcome
			},
			{
				parse: 'none',
				response: {
					202: t.Object({ accepted: t.Number() }),
					400: ErrorResponse,
					401: ErrorResponse,
					404: ErrorResponse,
					413: ErrorResponse,
					429: ErrorResponse,
				},
				detail: {
					...detail,
					summary: "A provider's push notification: verified, then a debounced sync of the connections it concerns",
				},
			},
		)
}
