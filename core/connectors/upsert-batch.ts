import { ServiceError } from '../errors.ts'
import type { ConnectionRecord, SyncCounts } from '../plugins/connection-storage.ts'
import type { ExternalDocument } from '../plugins/connector.ts'
import { applyUpsert } from './apply-event.ts'
import type { ConnectorDeps } from './deps.ts'

/** Upserts applied together: their stores' round trips overlap instead of queueing one item behind another. */
export const UPSERT_BATCH = 8

/** The service refused this one item (an unsupported file type, a file over the size limit): the run goes on. */
export const isRefusedItem = (error: unknown): error is ServiceError =>
	error instanceof ServiceError && [400, 413, 415, 422].includes(error.status)

/**
 * Upserts held until a batch is full, or until anything else must follow them (a delete, a reconciliation, a
 * checkpoint, the end of the run): `flush` applies them, so a checkpoint still covers only applied items. Under a
 * documentLimit they are applied one by one, so that the limit stops at the same item as without batching.
 */
export function upsertBatch(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	counts: SyncCounts,
	refused: (externalId: string, error: ServiceError) => Promise<void>,
	settled?: (externalId: string) => Promise<void>,
) {
	let pending: ExternalDocument[] = []

	const applied = async (document: ExternalDocument): Promise<boolean> => {
		try {
			const stored = await applyUpsert(deps, connection, document, counts)
			if (stored) await settled?.(document.externalId)
			return stored
		} catch (error) {
			if (!isRefusedItem(error)) throw error
			await refused(document.externalId, error)
			return true
		}
	}

	/** Applies what is held; false when the documentLimit stopped it. */
	async function flush(): Promise<boolean> {
		const batch = pending
		pending = []
		if (connection.documentLimit !== null) {
			for (const document of batch) if (!(await applied(document))) return false
			return true
		}
		const results = await Promise.allSettled(batch.map(applied))
		const failed = results.find((result) => result.status === 'rejected')
		if (failed) throw failed.reason
		return true
	}

	return {
		flush,
		/** Holds an upsert (applying the batch when full); false when the documentLimit was reached. */
		async add(document: ExternalDocument): Promise<boolean> {
			// The same item twice in one batch: the earlier version is applied first.
			if (pending.some((held) => held.externalId === document.externalId) && !(await flush())) return false
			pending.push(document)
			return pending.length >= UPSERT_BATCH ? flush() : true
		},
	}
}
