import type { JWTVerifyGetKey } from 'jose'
import type { Subscription, SyncContext, WebhookRequest, WebhookSpec } from '../../core/index.ts'
import { statusOf } from '../google/index.ts'
import { gmailClient, guarded } from './client.ts'
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
 * `users.watch` publishes to a Pub/Sub topic whose push subscription posts here. A push is accepted when its OIDC
 * token (signed by Google, issuer accounts.google.com, audience the one configured on the subscription) verifies, and
 * the mailbox it names belongs to a connection; it only asks for a sync.
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
	const watch = async (ctx: SyncContext<GmailSettings>) => {
		const gmail = await gmailClient(options.apiUrl, ctx)
		const { data } = await guarded(() =>
			gmail.users.watch({
				userId: 'me',
				requestBody: {
					topicName: options.topic!,
					labelIds: wantedLabels(ctx.settings),
					labelFilterBehavior: 'INCLUDE',
				},
			}),
		)
		const expiration = Number(data.expiration ?? 0) || Date.now() + 7 * 24 * 3_600_000
		return { gmail, expiresAt: new Date(Math.min(expiration, Date.now() + RENEW_AFTER_MS)).toISOString() }
	}
	return {
		routeKeys(request) {
			const { emailAddress } = envelopeOf(request)
			return emailAddress ? [emailAddress] : []
		},
		maxRouteKeys: 1,
		// Google signs the push itself: a forged one is refused before any mailbox is looked up.
		async authenticate(request) {
			if (!options.audience) return false
			const token = request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1]
			if (!token) return false
			try {
				const { jwtVerify } = await import('jose')
				const { payload } = await jwtVerify(token, await keySet(), {
					issuer: ISSUERS,
					audience: options.audience,
					algorithms: ['RS256'],
				})
				if (options.serviceAccount) {
					return payload.email === options.serviceAccount && payload.email_verified === true
				}
				return true
			} catch {
				return false
			}
		},
		deliveryId: (request) => envelopeOf(request).messageId,
		async subscribe(ctx): Promise<Subscription[]> {
			if (!options.topic) return []
			const { gmail, expiresAt } = await watch(ctx)
			const { data } = await guarded(() => gmail.users.getProfile({ userId: 'me' }))
			const address = (data.emailAddress ?? '').toLowerCase()
			return [{ externalId: address, routeKey: address, expiresAt, data: { topic: options.topic } }]
		},
		async renew(ctx) {
			if (!options.topic) return { expiresAt: null }
			return { expiresAt: (await watch(ctx)).expiresAt }
		},
		async unsubscribe(ctx) {
			const gmail = await gmailClient(options.apiUrl, ctx)
			try {
				await gmail.users.stop({ userId: 'me' })
			} catch (error) {
				if (statusOf(error) !== 404) throw error
			}
		},
	}
}
