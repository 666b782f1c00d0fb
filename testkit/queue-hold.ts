import type { QueuePolicy } from '../core/jobs/queue.ts'

/**
 * The queue `scripts/queue-hold-job.ts` holds a job of: stately, as the connector sync queue is. Its retry waits
 * 30 s, so only a job sent after the restart can run within the test's 15 s.
 */
export const HELD_QUEUE = 'held-job'
export const HELD_QUEUE_POLICY: QueuePolicy = {
	retryLimit: 3,
	retryDelaySeconds: 30,
	expireInSeconds: 3600,
	policy: 'stately',
}
