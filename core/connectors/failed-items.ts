import type { FailedItemRecord } from '../plugins/connection-storage.ts'
import type { ItemRetry } from '../plugins/connector.ts'
import type { ConnectorDeps } from './deps.ts'
import { ItemError } from './errors.ts'
import type { FailurePolicy } from './failure-policy.ts'

/**
 * The connection's failed items during one run: a failure is kept (attempts, next attempt with exponential backoff)
 * until the item imports, is gone, or has failed `itemAttempts` times (then it is given up, visible on the run).
 */
export async function failedItemsOf(deps: ConnectorDeps, connectionId: string, runId: string, policy: FailurePolicy) {
	const store = deps.storage.connections
	const known = new Map((await store.failedItems(connectionId)).map((item) => [item.externalId, item]))

	/** Delay before the attempt after `attempts` failures: the next run first, then doubling from the base. */
	const backoffSeconds = (attempts: number) => policy.retryBaseSeconds * (2 ** (attempts - 1) - 1)

	return {
		/** Failed items due for another attempt now. */
		due(now = Date.now()): FailedItemRecord[] {
			return [...known.values()].filter(
				(item) => !item.permanent && item.nextAttemptAt !== null && Date.parse(item.nextAttemptAt) <= now,
			)
		},
		/** Any failed item still waiting for an attempt (due or not). */
		pending: () => [...known.values()].some((item) => !item.permanent),
		/** Records a failed attempt; answers whether the item was given up. */
		async failed(externalId: string, error: string, retry: ItemRetry = 'transient'): Promise<boolean> {
			const attempts = (known.get(externalId)?.attempts ?? 0) + 1
			const permanent = retry === 'permanent' || attempts >= policy.itemAttempts
			const item: FailedItemRecord = {
				externalId,
				attempts,
				permanent,
				nextAttemptAt: permanent ? null : new Date(Date.now() + backoffSeconds(attempts) * 1000).toISOString(),
				error,
			}
			known.set(externalId, item)
			await store.putFailedItem(connectionId, item)
			const shown = permanent && retry !== 'permanent' ? `given up after ${attempts} attempts: ${error}` : error
			await store.addFailure(runId, externalId, shown, permanent)
			return permanent
		},
		/** The item imported, was unchanged or is gone: it no longer needs reading again. */
		async settled(externalId: string): Promise<void> {
			if (!known.delete(externalId)) return
			await store.removeFailedItem(connectionId, externalId)
		},
		/** Failed items under `prefix` (all without one). */
		under: (prefix: string | undefined) =>
			[...known.keys()].filter((externalId) => prefix === undefined || externalId.startsWith(prefix)),
	}
}

export type FailedItems = Awaited<ReturnType<typeof failedItemsOf>>

/** Whether a failed read is worth another attempt: an ItemError says so; anything else may be passing. */
export const retryOf = (error: unknown): ItemRetry => (error instanceof ItemError ? error.retry : 'transient')
