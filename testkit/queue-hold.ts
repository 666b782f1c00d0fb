import type { QueuePolicy } from '../core/jobs/queue.ts'

/** The queue `scripts/queue-hold-job.ts` holds a job of, as the connector sync queue is defined. */
export const HELD_QUEUE = 'held-job'
export const HELD_QUEUE_POLICY: QueuePolicy = {
	retryLimit: 3,
	retryDelaySeconds: 30,
	expireInSeconds: 3600,
	policy: 'stately',
}
