import type { PrunedRecords } from '../plugins/connection-storage.ts'
import type { ConnectorDeps } from './deps.ts'

const DAY_MS = 24 * 3_600_000

/**
 * How long a webhook delivery id is kept to refuse its replay: Pub/Sub, the longest-retrying provider, redelivers an
 * unacknowledged message for at most 31 days, its subscriptions' longest message retention ("Subscription
 * properties", Pub/Sub docs). Graph retries for 4 hours, GitHub redelivers by hand within 3 days.
 */
export const DELIVERY_RETENTION_DAYS = 31

/** A crawled host's turn idle this long is forgotten: it only paced requests seconds to minutes apart. */
export const TURN_IDLE_DAYS = 1

/** A connection still pending this long was abandoned: its authorization link lapsed after an hour. */
export const ABANDONED_AFTER_DAYS = 1

/** Finished sync runs kept per connection, newest first (the API lists the last 50). */
export const SYNC_RUNS_KEPT = 100

/** Deletes connector bookkeeping past its use (part of the hourly renewal job); logs what went. */
export async function pruneConnectorRecords(deps: ConnectorDeps, now = Date.now()): Promise<PrunedRecords> {
	const pruned = await deps.storage.connections.prune({
		deliveriesBefore: new Date(now - DELIVERY_RETENTION_DAYS * DAY_MS).toISOString(),
		turnsBefore: new Date(now - TURN_IDLE_DAYS * DAY_MS).toISOString(),
		pendingBefore: new Date(now - ABANDONED_AFTER_DAYS * DAY_MS).toISOString(),
		runsKept: SYNC_RUNS_KEPT,
	})
	if (Object.values(pruned).some((count) => count > 0)) deps.logger.info('pruned connector records', { ...pruned })
	return pruned
}
