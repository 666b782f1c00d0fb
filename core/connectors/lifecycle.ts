import { randomBase62 } from '../ids.ts'
import type { ConnectionRecord, SubscriptionRecord } from '../plugins/connection-storage.ts'
import { type AnyConnector, ConnectorAuthError, type Subscription } from '../plugins/connector.ts'
import { subscriptionContext, syncContext } from './context.ts'
import { type ConnectorDeps, type LifecycleJob, SYNC_QUEUE, type SyncJob } from './deps.ts'
import { revocable, revokeTokens } from './oauth.ts'
import { cronFor } from './schedule.ts'
import { openApp, openSecrets } from './secrets.ts'

export const webhookUrl = (baseUrl: string, provider: string) => `${baseUrl}/v3/connections/webhooks/${provider}`

/** Queues a sync now (or after `delaySeconds`); a sync already queued for the connection absorbs it. */
export async function enqueueSync(
	deps: ConnectorDeps,
	connectionId: string,
	trigger: SyncJob['trigger'],
	delaySeconds = 0,
): Promise<void> {
	await deps.queue.send<SyncJob>(SYNC_QUEUE, { connectionId, trigger }, { singletonKey: connectionId, delaySeconds })
}

/** The provider refused the connection's grant (a refused refresh, a 401): it needs authorizing again. */
export const isRevoked = (error: unknown) =>
	error instanceof ConnectorAuthError || (error as { status?: number } | null)?.status === 401

/**
 * A revoked grant (or one lacking a permission): the connection is `expired`, with the reason, and not synced on
 * schedule until authorized again.
 */
export async function expire(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	reason: string,
	kind = 'authorization expired or revoked',
): Promise<void> {
	await deps.storage.connections.update(connection.id, { status: 'expired', error: `${kind}: ${reason}` })
	await deps.queue.unschedule(SYNC_QUEUE, connection.id)
}

/** An authorized connection: its schedule, its push subscriptions and a first sync. */
export async function activate(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	baseUrl: string,
): Promise<number> {
	if (connector.schedule.everyHours !== null) {
		await deps.queue.schedule<SyncJob>(
			SYNC_QUEUE,
			connection.id,
			cronFor(connection.id, connector.schedule.everyHours),
			{
				connectionId: connection.id,
				trigger: 'schedule',
			},
		)
	}
	const registered = await resubscribe(deps, connector, connection, baseUrl)
	await enqueueSync(deps, connection.id, 'manual')
	return registered
}

/**
 * Replaces the connection's push subscriptions with ones for its current settings; returns how many it made. A
 * provider refusing them (no public HTTPS address, a revoked grant) is logged and makes none: webhooks are an
 * optimisation, and the schedule and manual imports still sync (a revoked grant then expires the connection).
 */
export async function resubscribe(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	baseUrl: string,
): Promise<number> {
	const webhook = connector.webhook
	if (!webhook?.subscribe) return 0
	await unsubscribeAll(deps, connector, connection)
	const secret = randomBase62(40)
	const url = webhookUrl(baseUrl, connection.provider)
	let subscriptions: Subscription[]
	try {
		const made = await webhook.subscribe(await subscriptionContext(deps, connector, connection), { url, secret })
		subscriptions = Array.isArray(made) ? made : made.subscriptions
		for (const failure of Array.isArray(made) ? [] : made.failures) {
			deps.logger.warn('the provider refused the webhook subscription of one scope; it syncs on schedule', {
				connectionId: connection.id,
				provider: connection.provider,
				scope: failure.scope,
				error: failure.error,
			})
		}
	} catch (error) {
		deps.logger.warn('the provider refused the webhook subscription; syncing on schedule and on demand only', {
			connectionId: connection.id,
			provider: connection.provider,
			address: url,
			error: String(error),
		})
		return 0
	}
	await deps.storage.connections.addSubscriptions(
		connection,
		subscriptions.map((subscription) => ({
			...subscription,
			secret: deps.secrets.seal(secret),
			data: subscription.data ?? {},
		})),
	)
	return subscriptions.length
}

async function unsubscribeAll(deps: ConnectorDeps, connector: AnyConnector, connection: ConnectionRecord) {
	const subscriptions = await deps.storage.connections.subscriptions(connection.id)
	if (subscriptions.length === 0) return
	const ctx = await subscriptionContext(deps, connector, connection)
	for (const subscription of subscriptions) {
		try {
			await connector.webhook?.unsubscribe?.(ctx, subscription)
		} catch (error) {
			deps.logger.warn('could not stop a webhook subscription', {
				connectionId: connection.id,
				error: String(error),
			})
		}
		await deps.storage.connections.removeSubscription(subscription.id)
	}
}

/** Before a connection is deleted: its schedule, its subscriptions and (where the provider has it) its grant. */
export async function teardown(deps: ConnectorDeps, connector: AnyConnector | undefined, connection: ConnectionRecord) {
	await deps.queue.unschedule(SYNC_QUEUE, connection.id)
	if (!connector) return
	// Every stored subscription is stopped, an expired connection's too (its hooks would otherwise deliver for ever).
	await unsubscribeAll(deps, connector, connection)
	const auth = connector.auth
	if (auth.type !== 'oauth2' || !revocable(auth)) return
	// Unsubscribing may have refreshed (and rotated) the tokens: revoke the current ones.
	const latest = (await deps.storage.connections.byId(connection.id)) ?? connection
	const stored = latest.secrets ? openSecrets(deps.secrets, latest).tokens : undefined
	const app = openApp(deps.secrets, latest)
	if (!stored || !app) return
	const sharing = await grantSharers(deps, connector, latest, app.clientId)
	if (sharing > 0) {
		deps.logger.info('the grant is kept: another connection of the same account and application holds it', {
			connectionId: connection.id,
			sharing,
		})
		return
	}
	// A provider may want a live access token to find the grant (GitHub's "valid access_token"): a lapsed one is
	// refreshed first, and the rotated tokens read back. A refused refresh leaves the stored ones to try.
	const live = await syncContext(deps, connector, latest)
		.accessToken()
		.catch(() => stored.accessToken)
	const refreshed = live === stored.accessToken ? null : await deps.storage.connections.byId(connection.id)
	const tokens = (refreshed?.secrets && openSecrets(deps.secrets, refreshed).tokens) || stored
	try {
		await revokeTokens(auth, app, tokens)
	} catch (error) {
		deps.logger.warn('could not revoke the grant at the provider', {
			connectionId: connection.id,
			error: String(error),
		})
	}
}

/**
 * Other active connections holding the same grant: the same provider account, authorized through the same OAuth
 * application (client id), by a connector of the same grant group (Drive and Gmail share Google's).
 */
async function grantSharers(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	clientId: string,
): Promise<number> {
	if (!connection.accountId) return 0
	const groupOf = (candidate: AnyConnector | undefined, provider: string) =>
		candidate?.auth.type === 'oauth2' ? (candidate.auth.grantGroup ?? provider) : null
	const group = groupOf(connector, connection.provider)
	const others = (await deps.storage.connections.connectionsOfAccount(connection.accountId)).filter(
		(other) =>
			other.id !== connection.id &&
			groupOf(deps.connectors.get(other.provider), other.provider) === group &&
			openApp(deps.secrets, other)?.clientId === clientId,
	)
	return others.length
}

/** Extends a subscription, or stores the replacement a provider made for it (Drive's channels cannot be extended). */
async function renewSubscription(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	subscription: SubscriptionRecord,
): Promise<void> {
	const ctx = await subscriptionContext(deps, connector, connection)
	const renewed = await connector.webhook!.renew!(ctx, subscription, { secret: deps.secrets.open(subscription.secret) })
	if ('replacement' in renewed) {
		const { replacement } = renewed
		await deps.storage.connections.addSubscriptions(connection, [
			{ ...replacement, secret: subscription.secret, data: replacement.data ?? {} },
		])
		await deps.storage.connections.removeSubscription(subscription.id)
	} else await deps.storage.connections.setSubscriptionExpiry(subscription.id, renewed.expiresAt)
}

/** Renews push subscriptions that lapse within a day (a recurring job). */
export async function renewSubscriptions(deps: ConnectorDeps): Promise<void> {
	const before = new Date(Date.now() + 24 * 3_600_000).toISOString()
	for (const subscription of await deps.storage.connections.expiring(before)) {
		const connection = await deps.storage.connections.byId(subscription.connectionId)
		const connector = connection && deps.connectors.get(connection.provider)
		if (!connection || !connector?.webhook?.renew || connection.status !== 'active') continue
		try {
			await renewSubscription(deps, connector, connection, subscription)
		} catch (error) {
			deps.logger.warn('could not renew a webhook subscription', { connectionId: connection.id, error: String(error) })
		}
	}
}

/** A lifecycle notification: the subscription renewed now, or made again (then a sync, for changes missed meanwhile). */
export async function applyLifecycle(deps: ConnectorDeps, job: LifecycleJob): Promise<void> {
	const connection = await deps.storage.connections.byId(job.connectionId)
	const connector = connection && deps.connectors.get(connection.provider)
	if (!connection || !connector?.webhook || connection.status !== 'active') return
	const subscription = (await deps.storage.connections.subscriptions(connection.id)).find(
		(candidate) => candidate.id === job.subscriptionId,
	)
	if (!subscription) return
	if (job.action === 'renew' && connector.webhook.renew) {
		await renewSubscription(deps, connector, connection, subscription)
	} else if (job.action === 'resubscribe' && job.baseUrl) {
		await resubscribe(deps, connector, connection, job.baseUrl)
		await enqueueSync(deps, connection.id, 'webhook')
	}
}
