import { createHash, timingSafeEqual } from 'node:crypto'
import type { WebhookRequest, WebhookSpec } from '../../core/index.ts'
import { graphClient, guarded, statusOf } from './client.ts'
import type { Endpoints, OnedriveSettings } from './options.ts'

/** One change or lifecycle notification of a Graph delivery. */
interface Notification {
	subscriptionId?: string
	clientState?: string
	lifecycleEvent?: string
}

/** Each delivery's body is parsed once, however many of the spec's functions read it. */
const parsed = new WeakMap<WebhookRequest, Notification[]>()

function notificationsOf(request: WebhookRequest): Notification[] {
	let notifications = parsed.get(request)
	if (!notifications) {
		notifications = parseNotifications(request)
		parsed.set(request, notifications)
	}
	return notifications
}

function parseNotifications(request: WebhookRequest): Notification[] {
	try {
		const body = JSON.parse(request.body) as { value?: unknown }
		return Array.isArray(body.value) ? (body.value.filter((n) => n && typeof n === 'object') as Notification[]) : []
	} catch {
		return []
	}
}

const digest = (text: string) => createHash('sha256').update(text).digest()

/** Compared as digests, so neither the content nor the length of the secret shows in the time taken. */
const sameSecret = (given: unknown, secret: string) =>
	typeof given === 'string' && timingSafeEqual(digest(given), digest(secret))

/**
 * Graph change subscriptions on the drive's root (`updated` is the only change type drive items have). Notifications
 * only say that something changed: each starts a (debounced) delta sync. Lifecycle notifications come to the same
 * address: `reauthorizationRequired` renews, `subscriptionRemoved` subscribes again, `missed` syncs.
 */
export function onedriveWebhook(endpoints: Endpoints): WebhookSpec<OnedriveSettings> {
	const expiry = () => new Date(Date.now() + endpoints.subscriptionMinutes * 60_000).toISOString()
	return {
		routeKeys: (request) => [
			...new Set(
				notificationsOf(request).flatMap((n) => (typeof n.subscriptionId === 'string' ? [n.subscriptionId] : [])),
			),
		],
		// Graph batches a few notifications per POST, one per subscription it concerns; every connection here has one.
		maxRouteKeys: 100,
		// Graph checks a new notification URL by POSTing a validationToken, to be echoed as plain text within 10 s.
		handshake(request) {
			const token = request.query.get('validationToken')
			if (token === null) return null
			return new Response(token, { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } })
		},
		verify: (request, secret) => notificationsOf(request).some((n) => sameSecret(n.clientState, secret)),
		wantsSync: (request) =>
			notificationsOf(request).some((n) => n.lifecycleEvent === undefined || n.lifecycleEvent === 'missed'),
		lifecycle(request, subscription) {
			const events = notificationsOf(request)
				.filter((n) => n.subscriptionId === subscription.routeKey)
				.map((n) => n.lifecycleEvent)
			if (events.includes('subscriptionRemoved')) return 'resubscribe'
			if (events.includes('reauthorizationRequired')) return 'renew'
			return null
		},
		async subscribe(ctx, { url, secret }) {
			const client = await graphClient(endpoints, () => ctx.accessToken())
			// A refused subscription (Graph reaches only public https addresses) is logged by core, which syncs on schedule.
			const created = (await guarded(() =>
				client.api('/subscriptions').post({
					changeType: 'updated',
					notificationUrl: url,
					lifecycleNotificationUrl: url,
					resource: 'me/drive/root',
					expirationDateTime: expiry(),
					clientState: secret,
				}),
			)) as { id: string; expirationDateTime?: string }
			return [{ externalId: created.id, routeKey: created.id, expiresAt: created.expirationDateTime ?? null }]
		},
		async renew(ctx, subscription) {
			const client = await graphClient(endpoints, () => ctx.accessToken())
			const renewed = (await guarded(() =>
				client
					.api(`/subscriptions/${encodeURIComponent(subscription.externalId)}`)
					.patch({ expirationDateTime: expiry() }),
			)) as { expirationDateTime?: string }
			return { expiresAt: renewed.expirationDateTime ?? expiry() }
		},
		async unsubscribe(ctx, subscription) {
			const client = await graphClient(endpoints, () => ctx.accessToken())
			try {
				await guarded(() => client.api(`/subscriptions/${encodeURIComponent(subscription.externalId)}`).delete())
			} catch (error) {
				if (statusOf(error) !== 404) throw error
			}
		},
	}
}
