import { type ConnectorDeps, type LifecycleJob, RENEW_QUEUE, SYNC_QUEUE, type SyncJob } from './deps.ts'
import { SYNC_EXPIRE_SECONDS } from './failure-policy.ts'
import { pruneConnectorRecords } from './housekeeping.ts'
import { applyLifecycle, enqueueSync, renewSubscriptions } from './lifecycle.ts'
import { runSync } from './sync-runner.ts'

/**
 * The connector queues. Every process defines them, an API-only one too: it schedules and queues syncs (an OAuth
 * callback, a webhook) into them, perhaps before any worker has started on the database.
 */
export async function defineConnectorQueues(deps: Pick<ConnectorDeps, 'queue'>): Promise<void> {
	await deps.queue.define(SYNC_QUEUE, {
		retryLimit: 3,
		retryDelaySeconds: 10,
		expireInSeconds: SYNC_EXPIRE_SECONDS,
		policy: 'stately',
	})
	await deps.queue.define(RENEW_QUEUE, { retryLimit: 2, retryDelaySeconds: 60, expireInSeconds: 15 * 60 })
}

/**
 * Syncs (one per connection at a time), the hourly renewal of push subscriptions with the pruning of bookkeeping
 * (`housekeeping.ts`), and subscription lifecycle notifications, on the durable queue (its queues defined first by
 * `defineConnectorQueues`).
 */
export async function startConnectorWorkers(deps: ConnectorDeps, concurrency: number): Promise<void> {
	if (deps.connectors.size === 0) return
	await deps.queue.work<SyncJob>(SYNC_QUEUE, { concurrency: Math.max(1, Math.ceil(concurrency / 2)) }, (job, attempt) =>
		runSync(deps, job, attempt),
	)
	await deps.queue.work<Partial<LifecycleJob>>(RENEW_QUEUE, { concurrency: 1 }, async (job) => {
		if (job.subscriptionId) return applyLifecycle(deps, job as LifecycleJob)
		await renewSubscriptions(deps)
		await pruneConnectorRecords(deps)
	})
	// Syncs a stopped process left unfinished resume now, from their last checkpoint (not after the retry delay).
	for (const { connectionId, trigger } of await deps.storage.connections.interruptedConnections()) {
		await enqueueSync(deps, connectionId, trigger)
	}
	await deps.queue.schedule(RENEW_QUEUE, 'renew', '17 * * * *', {})
}
