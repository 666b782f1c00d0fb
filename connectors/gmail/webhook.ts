import type { JWTPayload, JWTVerifyGetKey } from 'jose'
import type { SyncContext, WebhookRequest, WebhookSpec } from '../../core/index.ts'
import { statusOf } from '../google/index.ts'
import { type GmailApi, gmailClient } from './client.ts'
import { type GmailSettings, wantedLabels } from './options.ts'

export interface PushOptions {
	apiUrl: string | undefined
	topic: string | null
	audience: string | null
	serviceAccount: string | null
	jwksUrl: string
}

const ISSUERS = ['https://accounts.google.com', 'accounts.google.com']
/** Google keeps a watch 7 days and asks for it to be renewed daily: recorded as lapsing 2 days on, the hourly
 * renewal job (which renews what lapses within a day) calls `watch` again about once a day. */
const RENEW_AFTER_MS = 2 * 24 * 3_600_000

interface PushEnvelope {
	message?: { data?: string; messageId?: string; message_id?: string }
}

interface Envelope {
	emailAddress: string | null
	messageId: string | null
}

/** Each notification's body is parsed once, however many of the spec's functions read it. */
const envelopes = new WeakMap<WebhookRequest, Envelope>()

function envelopeOf(request: WebhookRequest): Envelope {
	let envelope = envelopes.get(request)
	if (!envelope) {
		envelope = parseEnvelope(request)
		envelopes.set(request, envelope)
	}
	return envelope
}

function parseEnvelope(request: WebhookRequest): Envelope {
	try {
		const envelope = JSON.parse(request.body) as PushEnvelope
		const data = JSON.parse(Buffer.from(envelope.message?.data ?? '', 'base64').toString('utf8')) as {
			emailAddress?: unknown
		}
		return {
			emailAddress: typeof data.emailAddress === 'string' ? data.emailAddress.toLowerCase() : null,
			messageId: envelope.message?.messageId ?? envelope.message?.message_id ?? null,
		}
	} catch {
		return { emailAddress: null, messageId: null }
	}
}

/**
 * The topic a connection's watch publishes to: its application's. Gmail requires the topic to be in the Cloud project
 * of the application making the watch, so an organization's own application uses the topic in its settings
 * (`googleDrivePubsubTopic`), never the server's.
 */
export function topicFor(ctx: Pick<SyncContext, 'app'>, serverTopic: string | null): string | null {
	if (ctx.app?.source === 'custom') return ctx.app.options.pubsubTopic ?? null
	return serverTopic
}

const NO_CUSTOM_TOPIC =
	"push is off: the organization's own Google application has no Pub/Sub topic (set googleDrivePubsubTopic, a topic in that application's Cloud project); the mailbox syncs on schedule"
const NO_CUSTOM_ACCOUNT =
	"push is off: the organization's own Google application names no push service account (set googleDrivePushServiceAccount, the service account its push subscription authenticates with); the mailbox syncs on schedule"
const NO_SERVER_ACCOUNT =
	'push is off: GMAIL_PUSH_SERVICE_ACCOUNT is not set (the service account the push subscription authenticates with; any Google Cloud project can mint a token for the audience alone); the mailbox syncs on schedule'

/**
 * The service account whose push tokens are taken for a connection of `app`: the server's (GMAIL_PUSH_SERVICE_ACCOUNT)
 * for its application, the organization's own (`googleDrivePushServiceAccount`) for an organization's application.
 */
const expectedAccount = (
	app: { source: 'server' | 'custom'; options?: Record<string, string> } | undefined,
	server: string | null,
) => (app?.source === 'custom' ? (app.options?.pushServiceAccount ?? null) : server)

/**
 * `users.watch` publishes to a Pub/Sub topic whose push subscription posts here. A push is accepted when its OIDC
 * token (signed by Google, issuer accounts.google.com, audience the one configured on the subscription) verifies, it
 * names the service account of the application the mailbox's connection uses (any Cloud project can have Google sign
 * a token for an audience, so without a service account push is off), and the mailbox belongs to a connection; it
 * only asks for a sync. Gmail keeps one watch per mailbox (and Cloud project): connections on the same mailbox and
 * topic share it, watching the union of their labels, and it is stopped only when the last of them goes.
 */
export function gmailWebhook(options: PushOptions): WebhookSpec<GmailSettings> {
	let keys: JWTVerifyGetKey | null = null
	const keySet = async () => {
		if (!keys) {
			const { createRemoteJWKSet } = await import('jose')
			keys = createRemoteJWKSet(new URL(options.jwksUrl))
		}
		return keys
	}
	/** This connection's labels and those of the other connections sharing the mailbox's watch on `topic`. */
	const labelsFor = async (ctx: SyncContext<GmailSettings>, address: string, topic: string, own: boolean) => {
		const sharers = ((await ctx.routeSharers?.(address)) ?? []).filter((sharer) => sharer.data.topic === topic)
		const labels = sharers.flatMap((sharer) => wantedLabels(sharer.settings as unknown as GmailSettings))
		return { labels: [...new Set([...(own ? wantedLabels(ctx.settings) : []), ...labels])], shared: sharers.length }
	}
	const watch = async (api: GmailApi, topic: string, labelIds: string[]) => {
		const { data } = await api.call(() =>
			api.gmail.users.watch({
				userId: 'me',
				requestBody: { topicName: topic, labelIds, labelFilterBehavior: 'INCLUDE' },
			}),
		)
		const expiration = Number(data.expiration ?? 0) || Date.now() + 7 * 24 * 3_600_000
		return new Date(Math.min(expiration, Date.now() + RENEW_AFTER_MS)).toISOString()
	}
	const verifyToken = async (request: WebhookRequest): Promise<JWTPayload | null> => {
		if (!options.audience) return null
		const token = request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1]
		if (!token) return null
		try {
			const { jwtVerify } = await import('jose')
			const { payload } = await jwtVerify(token, await keySet(), {
				issuer: ISSUERS,
				audience: options.audience,
				algorithms: ['RS256'],
			})
			return payload
		} catch {
			return null
		}
	}
	/** The claims of the push's token when Google signed it for the audience (once per push), else null. */
	const claims = new WeakMap<WebhookRequest, Promise<JWTPayload | null>>()
	const verifiedClaims = (request: WebhookRequest) => {
		const known = claims.get(request)
		if (known) return known
		const verified = verifyToken(request)
		claims.set(request, verified)
		return verified
	}
	/** Whether the push's token names `account`, verified. */
	const signedBy = async (request: WebhookRequest, account: string | null) => {
		const payload = await verifiedClaims(request)
		return account !== null && payload?.email === account && payload.email_verified === true
	}
	return {
		routeKeys(request) {
			const { emailAddress } = envelopeOf(request)
			return emailAddress ? [emailAddress] : []
		},
		maxRouteKeys: 1,
		// Google signs the push itself: a forged one is refused before any mailbox is looked up.
		authenticate: async (request) => (await verifiedClaims(request)) !== null,
		// Signed by the service account of the application the mailbox's connection uses, not another organization's.
		verifyApp: (request, app) => signedBy(request, expectedAccount(app, options.serviceAccount)),
		// Pub/Sub redelivers anything not answered 2xx for 7 days: a push of the server's subscription for a mailbox no
		// connection watches (any more) is acknowledged.
		verifyWithoutSubscription: (request) => signedBy(request, options.serviceAccount),
		deliveryId: (request) => envelopeOf(request).messageId,
		async subscribe(ctx) {
			const topic = topicFor(ctx, options.topic)
			if (!topic) {
				const failures = ctx.app?.source === 'custom' ? [{ scope: 'push', error: NO_CUSTOM_TOPIC }] : []
				return { subscriptions: [], failures }
			}
			// Its pushes would all be refused: no watch.
			if (!expectedAccount(ctx.app, options.serviceAccount)) {
				const error = ctx.app?.source === 'custom' ? NO_CUSTOM_ACCOUNT : NO_SERVER_ACCOUNT
				return { subscriptions: [], failures: [{ scope: 'push', error }] }
			}
			const api = await gmailClient(options.apiUrl, ctx)
			const { data } = await api.call(() => api.gmail.users.getProfile({ userId: 'me' }))
			const address = (data.emailAddress ?? '').toLowerCase()
			const expiresAt = await watch(api, topic, (await labelsFor(ctx, address, topic, true)).labels)
			return [{ externalId: address, routeKey: address, expiresAt, data: { topic } }]
		},
		async renew(ctx, subscription) {
			const topic = subscription.data?.topic ?? topicFor(ctx, options.topic)
			// No expiry: the renewal stops and a watch made before push was turned off lapses within 7 days.
			if (!topic || !expectedAccount(ctx.app, options.serviceAccount)) return { expiresAt: null }
			const api = await gmailClient(options.apiUrl, ctx)
			const { labels } = await labelsFor(ctx, subscription.routeKey, topic, true)
			return { expiresAt: await watch(api, topic, labels) }
		},
		async unsubscribe(ctx, subscription) {
			const api = await gmailClient(options.apiUrl, ctx)
			const topic = subscription.data?.topic
			const others = topic ? await labelsFor(ctx, subscription.routeKey, topic, false) : { labels: [], shared: 0 }
			// Other connections still watch the mailbox: the watch stays, narrowed to their labels.
			if (topic && others.shared > 0) {
				await watch(api, topic, others.labels)
				return
			}
			try {
				await api.call(() => api.gmail.users.stop({ userId: 'me' }))
			} catch (error) {
				if (statusOf(error) !== 404) throw error
			}
		},
	}
}
