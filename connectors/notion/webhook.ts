import type { Logger, WebhookRequest, WebhookSpec } from '../../core/index.ts'
import { NotionSession } from './client.ts'

interface Delivery {
	id?: unknown
	type?: unknown
	workspace_id?: unknown
	verification_token?: unknown
}

/** Each delivery's body is parsed once, however many of the spec's functions read it. */
const deliveries = new WeakMap<WebhookRequest, Delivery | null>()

function parse(request: WebhookRequest): Delivery | null {
	if (!deliveries.has(request)) deliveries.set(request, parseDelivery(request))
	return deliveries.get(request) ?? null
}

function parseDelivery(request: WebhookRequest): Delivery | null {
	try {
		const body = JSON.parse(request.body) as unknown
		return body && typeof body === 'object' && !Array.isArray(body) ? (body as Delivery) : null
	} catch {
		return null
	}
}

/** Whether the delivery's `X-Notion-Signature` is the HMAC of its body with one of `tokens`. */
async function signedWithOneOf(request: WebhookRequest, tokens: string[]): Promise<boolean> {
	const signature = request.headers.get('x-notion-signature')
	if (!signature) return false
	const { verifyWebhookSignature } = await import('@notionhq/client')
	for (const verificationToken of tokens) {
		if (verificationToken && (await verifyWebhookSignature({ body: request.body, signature, verificationToken }))) {
			return true
		}
	}
	return false
}

/** Events about content the connector imports; comments and file uploads are not imported. */
const SYNCING = /^(page|database|data_source)\./

/** Notion's verification tokens: `secret_` and a few dozen letters and digits (developers.notion.com, webhooks). */
const VERIFICATION_TOKEN_FORM = /^secret_[A-Za-z0-9_-]{16,128}$/

/**
 * Notion's webhooks: one subscription per integration, made in its settings. Notion first POSTs a verification
 * token, which the operator pastes back there (it is logged for that) and configures here
 * (NOTION_WEBHOOK_VERIFICATION_TOKEN for the server's integration, an organization's `notionWebhookVerificationToken`
 * setting for its own): only a token the operator confirmed signs deliveries we accept, so a forged handshake cannot
 * install a key. Events (`X-Notion-Signature`, HMAC-SHA256 of the body) are routed by workspace, and taken only for
 * the connections of the integration whose token signed them.
 */
export function notionWebhook(options: {
	apiUrl: string
	requestsPerSecond: number
	verificationTokens: string[]
	logger: () => Logger
}): WebhookSpec<unknown> {
	return {
		routeKeys(request) {
			const workspace = parse(request)?.workspace_id
			return typeof workspace === 'string' && workspace ? [workspace] : []
		},
		maxRouteKeys: 1,
		handshake(request) {
			const body = parse(request)
			if (typeof body?.verification_token !== 'string' || body.type !== undefined) return null
			// Anyone can send this: only a token of Notion's form is logged, and it is trusted only once Notion accepts it.
			if (!VERIFICATION_TOKEN_FORM.test(body.verification_token)) {
				return Response.json(
					{ error: 'Invalid notification', details: 'verification_token is not of the form Notion sends' },
					{ status: 400 },
				)
			}
			options
				.logger()
				.warn(
					"A POST claiming to be Notion's webhook verification token: paste it into the integration's Webhooks settings; only once Notion accepts it there, set it as NOTION_WEBHOOK_VERIFICATION_TOKEN (the server's integration) or as the organization's notionWebhookVerificationToken setting (its own integration) so deliveries are accepted",
					{ verificationToken: body.verification_token },
				)
			return Response.json({ received: true })
		},
		// Signed with the verification token of the integration the workspace's connection was authorized with: the
		// server's (NOTION_WEBHOOK_VERIFICATION_TOKEN) or its organization's own (notionWebhookVerificationToken), so
		// one organization's token never starts another organization's syncs.
		verifyApp: (request, app) =>
			signedWithOneOf(
				request,
				app.source === 'server' ? options.verificationTokens : [app.options.webhookVerificationToken ?? ''],
			),
		// A delivery of the server's integration for a workspace no connection has (any more) is acknowledged.
		verifyWithoutSubscription: (request) => signedWithOneOf(request, options.verificationTokens),
		deliveryId(request) {
			const id = parse(request)?.id
			return typeof id === 'string' && id ? id : null
		},
		wantsSync(request) {
			const type = parse(request)?.type
			return typeof type === 'string' && SYNCING.test(type)
		},
		/** Nothing to create at Notion: the connection is routed by the workspace its grant belongs to. */
		async subscribe(ctx) {
			const session = await NotionSession.open(ctx, options.apiUrl, options.requestsPerSecond)
			let workspace: string | undefined
			try {
				// The library types this call's parameters as an empty record, so `auth` needs the cast.
				const me = (await session.call((client, auth) => client.users.me({ auth } as never))) as {
					bot?: { workspace_id?: string }
				}
				workspace = me.bot?.workspace_id
			} catch (error) {
				// Webhooks are an optimisation: the connection still syncs on schedule and on demand.
				ctx.logger.warn('could not read the Notion workspace of a connection; its webhooks are not routed', {
					connectionId: ctx.connectionId,
					error: String(error),
				})
			}
			if (!workspace) return []
			return [{ externalId: workspace, routeKey: workspace, expiresAt: null, data: { workspaceId: workspace } }]
		},
	}
}
