import { HttpError } from '../errors.ts'
import type { WebhookRequest } from '../plugins/connector.ts'
import { type ConnectorDeps, type LifecycleJob, RENEW_QUEUE } from './deps.ts'
import { enqueueSync } from './lifecycle.ts'
import { connectorFor } from './providers.ts'

const refused = (details: string) => new HttpError(401, 'Webhook refused', details)

/**
 * One provider's notification: verified against the secret of the subscription it names, acknowledged without effect
 * when it is a duplicate, then a (debounced) incremental sync of each connection it concerns. Forged or unsigned ones
 * are refused (401). Nothing else happens before the answer.
 */
export async function receiveWebhook(
	deps: ConnectorDeps,
	provider: string,
	request: WebhookRequest,
): Promise<Response | { accepted: number }> {
	const connector = connectorFor(deps, provider)
	const webhook = connector.webhook
	if (!webhook) throw new HttpError(404, 'Not found', `the ${provider} connector takes no webhooks`)
	const handshake = webhook.handshake?.(request)
	if (handshake) return handshake
	const subscriptions = (
		await Promise.all(
			webhook.routeKeys(request).map((key) => deps.storage.connections.subscriptionsByRoute(provider, key)),
		)
	).flat()
	if (subscriptions.length === 0) {
		// A verified delivery for a subscription that is gone is acknowledged: anything else is redelivered for days.
		if (await webhook.verifyWithoutSubscription?.(request)) return { accepted: 0 }
		throw refused('the notification names no known subscription')
	}
	const verified = []
	for (const subscription of subscriptions) {
		if (await webhook.verify(request, deps.secrets.open(subscription.secret))) verified.push(subscription)
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
		const connection = await deps.storage.connections.byId(connectionId)
		if (connection?.status !== 'active') continue
		const settings = { ...(connector.defaultSettings ?? {}), ...connection.settings }
		if (webhook.wantsSync && !webhook.wantsSync(request, settings)) continue
		await enqueueSync(deps, connectionId, 'webhook', deps.webhookDebounceSeconds)
		accepted++
	}
	return { accepted }
}
