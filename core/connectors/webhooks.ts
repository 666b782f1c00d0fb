import { ServiceError } from '../errors.ts'
import type { ConnectionRecord, SubscriptionRecord } from '../plugins/connection-storage.ts'
import {
	type AnyConnector,
	DEFAULT_WEBHOOK_BODY_BYTES,
	DEFAULT_WEBHOOK_ROUTE_KEYS,
	type WebhookApp,
	type WebhookRequest,
} from '../plugins/connector.ts'
import { currentAppOptions } from './context.ts'
import { type ConnectorDeps, type LifecycleJob, RENEW_QUEUE } from './deps.ts'
import { enqueueSync } from './lifecycle.ts'
import { connectorFor } from './providers.ts'
import { openApp } from './secrets.ts'

const refused = (details: string) => new ServiceError(401, 'Webhook refused', details)

/**
 * One provider's notification: bounded in size and in the subscriptions it may name, checked against the provider's
 * own signature before any lookup where it has one, the subscriptions it names found in one query and verified
 * against their secrets, acknowledged without effect when it is a duplicate, then a (debounced) incremental sync of
 * each connection it concerns. Forged or unsigned ones are refused (401). Nothing else happens before the answer.
 */
/** The largest body the provider's notifications may have (404 for a provider without webhooks). */
export function webhookBodyLimit(deps: ConnectorDeps, provider: string): number {
	const webhook = connectorFor(deps, provider).webhook
	if (!webhook) throw new ServiceError(404, 'Not found', `the ${provider} connector takes no webhooks`)
	return webhook.maxBodyBytes ?? DEFAULT_WEBHOOK_BODY_BYTES
}

const bodyTooLarge = (provider: string, bytes: number | null, limit: number) =>
	new ServiceError(
		413,
		'Payload too large',
		`the body is ${bytes === null ? 'over the limit' : `${bytes} bytes`}; ${provider} notifications take ${limit}`,
	)

/**
 * The body of a notification, refused (413) as soon as it is declared or read past `limit`: what is over is never
 * read.
 */
export async function readWebhookBody(provider: string, request: Request, limit: number): Promise<string> {
	const declared = Number(request.headers.get('content-length') ?? Number.NaN)
	if (declared > limit) throw bodyTooLarge(provider, declared, limit)
	if (!request.body) return ''
	const chunks: Uint8Array[] = []
	let received = 0
	const reader = request.body.getReader()
	for (;;) {
		const { done, value } = await reader.read()
		if (done) break
		received += value.byteLength
		if (received > limit) {
			await reader.cancel().catch(() => {})
			throw bodyTooLarge(provider, null, limit)
		}
		chunks.push(value)
	}
	return Buffer.concat(chunks).toString('utf8')
}

/**
 * For a provider that routes by headers: refuses (401) a notification that names no known subscription before its
 * body is read, so a large forged body costs no reading or hashing. Returns the subscriptions it found, for
 * `receiveWebhook` to use rather than look them up again; null when nothing was looked up.
 */
export async function refuseUnroutedWebhook(
	deps: ConnectorDeps,
	provider: string,
	headers: Headers,
): Promise<SubscriptionRecord[] | null> {
	const webhook = connectorFor(deps, provider).webhook
	if (!webhook?.routedByHeaders) return null
	const unread = { headers, body: '', query: new URLSearchParams() }
	// A handshake told by its headers (GitHub's ping of a hook not stored yet) is answered as usual.
	if (webhook.handshake?.(unread)) return null
	const keys = [...new Set(webhook.routeKeys(unread))]
	if (keys.length === 0 || keys.length > (webhook.maxRouteKeys ?? DEFAULT_WEBHOOK_ROUTE_KEYS)) {
		throw refused('the notification names no known subscription')
	}
	const known = await deps.storage.connections.subscriptionsByRoutes(provider, keys)
	if (known.length === 0) throw refused('the notification names no known subscription')
	return known
}

/** The application the subscription's connection was authorized with, with its current options. */
async function webhookApp(
	deps: ConnectorDeps,
	connector: AnyConnector,
	subscription: SubscriptionRecord,
	connectionOf: (id: string) => Promise<ConnectionRecord | null>,
): Promise<WebhookApp | null> {
	const connection = await connectionOf(subscription.connectionId)
	const app = connection ? openApp(deps.secrets, connection) : null
	if (!app) return null
	const options = await currentAppOptions(deps, connector, subscription.orgId, app)
	return { source: app.source, clientId: app.clientId, orgId: subscription.orgId, options }
}

/** `routed`: the subscriptions `refuseUnroutedWebhook` found by the same request's headers, if it looked them up. */
export async function receiveWebhook(
	deps: ConnectorDeps,
	provider: string,
	request: WebhookRequest,
	routed: SubscriptionRecord[] | null = null,
): Promise<Response | { accepted: number }> {
	const connector = connectorFor(deps, provider)
	const webhook = connector.webhook
	if (!webhook) throw new ServiceError(404, 'Not found', `the ${provider} connector takes no webhooks`)
	const maxBytes = webhook.maxBodyBytes ?? DEFAULT_WEBHOOK_BODY_BYTES
	const bytes = Buffer.byteLength(request.body)
	if (bytes > maxBytes) {
		throw new ServiceError(
			413,
			'Payload too large',
			`the body is ${bytes} bytes; ${provider} notifications take ${maxBytes}`,
		)
	}
	const handshake = webhook.handshake?.(request)
	if (handshake) return handshake
	if (webhook.authenticate && !(await webhook.authenticate(request))) throw refused('the signature does not match')
	const routeKeys = [...new Set(webhook.routeKeys(request))]
	const maxKeys = webhook.maxRouteKeys ?? DEFAULT_WEBHOOK_ROUTE_KEYS
	if (routeKeys.length > maxKeys) {
		throw new ServiceError(
			400,
			'Invalid notification',
			`the notification names ${routeKeys.length} subscriptions; ${provider} sends at most ${maxKeys}`,
		)
	}
	const subscriptions = routed ?? (await deps.storage.connections.subscriptionsByRoutes(provider, routeKeys))
	if (subscriptions.length === 0) {
		// A delivery the provider's own signature (or verifyWithoutSubscription) vouches for, for a subscription that is
		// gone, is acknowledged: anything else is redelivered for days.
		const vouched = webhook.verifyWithoutSubscription
			? await webhook.verifyWithoutSubscription(request)
			: webhook.authenticate !== undefined
		if (vouched) return { accepted: 0 }
		throw refused('the notification names no known subscription')
	}
	// Each connection is read once, however many of its subscriptions the notification names.
	const read = new Map<string, Promise<ConnectionRecord | null>>()
	const connectionOf = (id: string) => read.get(id) ?? read.set(id, deps.storage.connections.byId(id)).get(id)!
	const verified = []
	for (const subscription of subscriptions) {
		// Without `verify`, `authenticate` (which passed above) and `verifyApp` are the checks; a spec with none of them
		// accepts nothing.
		let ok = webhook.verify
			? await webhook.verify(request, deps.secrets.open(subscription.secret))
			: webhook.authenticate !== undefined || webhook.verifyApp !== undefined
		if (ok && webhook.verifyApp) {
			const app = await webhookApp(deps, connector, subscription, connectionOf)
			ok = app !== null && (await webhook.verifyApp(request, app))
		}
		if (ok) verified.push(subscription)
	}
	if (verified.length === 0) throw refused('the signature does not match')
	const delivery = webhook.deliveryId?.(request)
	// A verified duplicate is acknowledged and ignored (at-least-once providers redeliver whatever is not a 2xx).
	if (delivery && !(await deps.storage.connections.recordDelivery(provider, delivery))) return { accepted: 0 }
	const baseUrl = deps.publicUrl ?? (request.url ? new URL(request.url).origin : null)
	for (const subscription of verified) {
		const action = webhook.lifecycle?.(request, subscription)
		if (!action) continue
		const job = { connectionId: subscription.connectionId, subscriptionId: subscription.id, action, baseUrl }
		await deps.queue.send<LifecycleJob>(RENEW_QUEUE, job)
	}
	let accepted = 0
	for (const connectionId of new Set(verified.map((subscription) => subscription.connectionId))) {
		const connection = await connectionOf(connectionId)
		if (connection?.status !== 'active') continue
		const settings = { ...(connector.defaultSettings ?? {}), ...connection.settings }
		if (webhook.wantsSync && !webhook.wantsSync(request, settings)) continue
		await enqueueSync(deps, connectionId, 'webhook', deps.webhookDebounceSeconds)
		accepted++
	}
	return { accepted }
}
