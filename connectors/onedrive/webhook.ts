import { createHash, timingSafeEqual } from 'node:crypto'
import type { Subscription, SyncContext, WebhookRequest, WebhookSpec } from '../../core/index.ts'
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
 * only say that something changed: each starts a (debounced) delta sync. The only lifecycle notification Graph sends
 * for drive items is `reauthorizationRequired`, which renews; a subscription Graph dropped says nothing, and its
 * renewal's 404 makes a new one in its place.
 */
export function onedriveWebhook(endpoints: Endpoints): WebhookSpec<OnedriveSettings> {
	const expiry = () => new Date(Date.now() + endpoints.subscriptionMinutes * 60_000).toISOString()
	const create = async (ctx: SyncContext<OnedriveSettings>, url: string, secret: string): Promise<Subscription> => {
		const client = await graphClient(endpoints, () => ctx.accessToken())
		let created: { id: string; expirationDateTime?: string }
		try {
			created = (await guarded(() =>
				client.api('/subscriptions').post({
					changeType: 'updated',
					notificationUrl: url,
					lifecycleNotificationUrl: url,
					resource: 'me/drive/root',
					expirationDateTime: expiry(),
					clientState: secret,
				}),
			)) as { id: string; expirationDateTime?: string }
		} catch (error) {
			if (statusOf(error) === 403) {
				throw new Error(
					'change notifications are off: Microsoft Graph refused the drive subscription (403); it needs the Files.ReadWrite.All permission (Files.ReadWrite for a personal account), which this grant lacks. The connection syncs on schedule and on demand',
				)
			}
			throw error
		}
		return {
			externalId: created.id,
			routeKey: created.id,
			expiresAt: created.expirationDateTime ?? null,
			data: { notificationUrl: url },
		}
	}
	return {
		routeKeys: (request) => [
			...new Set(
				notificationsOf(request).flatMap((n) => (typeof n.subscriptionId === 'string' ? [n.subscriptionId] : [])),
			),
		],
		// Graph batches a few notifications per POST, one per subscription it concerns; every connection here has one.
		maxRouteKeys: 100,
		// 100 notifications of about 1 KiB each: a larger body is refused before it is read or parsed.
		maxBodyBytes: 256 * 1024,
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
			return events.includes('reauthorizationRequired') ? 'renew' : null
		},
		// A refused subscription (Graph reaches only public https addresses, and needs a read-write scope) is logged by
		// core, which syncs on schedule.
		subscribe: async (ctx, { url, secret }) => [await create(ctx, url, secret)],
		async renew(ctx, subscription, { secret }) {
			const client = await graphClient(endpoints, () => ctx.accessToken())
			try {
				const renewed = (await guarded(() =>
					client
						.api(`/subscriptions/${encodeURIComponent(subscription.externalId)}`)
						.patch({ expirationDateTime: expiry() }),
				)) as { expirationDateTime?: string }
				return { expiresAt: renewed.expirationDateTime ?? expiry() }
			} catch (error) {
				if (statusOf(error) !== 404) throw error
			}
			// Graph no longer has it (it lapsed, or Graph removed it): a new one, to the same address and secret.
			const url = subscription.data?.notificationUrl
			if (!url) throw new Error('the dropped subscription has no stored notification URL to subscribe again with')
			return { replacement: await create(ctx, url, secret) }
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
