import type { HttpError } from '../errors.ts'
import type { JobAttempt } from '../jobs/queue.ts'
import type { ConnectionRecord, SyncCounts, SyncErrorCode } from '../plugins/connection-storage.ts'
import { applyDelete, applyPresent } from './apply-event.ts'
import { syncContext } from './context.ts'
import type { ConnectorDeps, SyncJob } from './deps.ts'
import { expire, isRevoked } from './lifecycle.ts'
import { upsertBatch } from './upsert-batch.ts'

const refusal = (error: HttpError) => (error.details ? `${error.message}: ${error.details}` : error.message)

const statusOf = (error: unknown) => (error as { status?: number } | null)?.status

function errorCodeOf(error: unknown): SyncErrorCode {
	const status = statusOf(error)
	if (status === 429 || status === 403) return 'rate_limited'
	if (status !== undefined && status >= 500) return 'provider_unavailable'
	return 'internal'
}

/**
 * One sync of one connection (the queue runs one per connection at a time): from its last committed cursor, events
 * applied in order (upserts a few at a time), the cursor stored at each checkpoint once everything before it is. A process that dies mid-run leaves the run
 * `running`; the retried job marks it interrupted and starts again from the last checkpoint, and items already
 * imported are updated in place (their customId), never duplicated.
 */
export async function runSync(deps: ConnectorDeps, job: SyncJob, attempt: JobAttempt): Promise<void> {
	const { storage, logger } = deps
	const connection = await storage.connections.byId(job.connectionId)
	if (connection?.status !== 'active') return
	const connector = deps.connectors.get(connection.provider)
	if (!connector) {
		logger.warn('no connector serves this connection', { connectionId: connection.id, provider: connection.provider })
		return
	}
	await storage.connections.interruptRuns(connection.id)
	const run = await storage.connections.startRun(connection.id, job.trigger)
	const counts: SyncCounts = { added: 0, updated: 0, deleted: 0, skipped: 0, failed: 0 }
	const ctx = syncContext(deps, connector, connection)
	let limitReached = false
	const upserts = upsertBatch(deps, connection, counts, async (externalId, error) => {
		counts.failed++
		await storage.connections.addFailure(run.id, externalId, refusal(error))
	})
	try {
		for await (const event of connector.sync(ctx, connection.cursor)) {
			if (event.type === 'upsert') limitReached = !(await upserts.add(event.document))
			else if (event.type === 'delete' || event.type === 'present' || event.type === 'checkpoint') {
				limitReached = !(await upserts.flush())
			}
			if (limitReached) break
			switch (event.type) {
				case 'unchanged':
					counts.skipped++
					break
				case 'delete':
					await applyDelete(deps, connection, event.externalId, counts)
					break
				case 'failure':
					counts.failed++
					await storage.connections.addFailure(run.id, event.externalId, event.error)
					break
				case 'present':
					await applyPresent(deps, connection, event.externalIds, event.prefix, counts)
					break
				case 'checkpoint':
					await storage.connections.update(connection.id, { cursor: event.cursor })
					await storage.connections.updateRun(run.id, { counts })
					break
			}
		}
		if (!limitReached) limitReached = !(await upserts.flush())
		await storage.connections.updateRun(run.id, {
			status: limitReached ? 'limit_reached' : 'completed',
			...(limitReached
				? { error: `documentLimit (${connection.documentLimit}) reached: the sync stopped before importing more` }
				: {}),
			counts,
			finished: true,
		})
		await storage.connections.update(connection.id, { error: null })
	} catch (error) {
		// What the connector read before it failed is still applied (a retry finds it imported).
		await upserts.flush().catch((cause) => logger.warn('could not apply held upserts', { cause: String(cause) }))
		await failRun(deps, connection, run.id, counts, error)
		// A provider outage is retried by the queue (from the last checkpoint); a refused grant is not.
		if (!isRevoked(error) && !attempt.lastAttempt) throw error
	}
}

async function failRun(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	runId: string,
	counts: SyncCounts,
	error: unknown,
): Promise<void> {
	const message = error instanceof Error ? error.message : String(error)
	const revoked = isRevoked(error)
	await deps.storage.connections.updateRun(runId, {
		status: 'failed',
		error: message,
		errorCode: revoked ? 'auth_expired' : errorCodeOf(error),
		counts,
		finished: true,
	})
	if (revoked) await expire(deps, connection, message)
	deps.logger.warn('connector sync failed', {
		connectionId: connection.id,
		provider: connection.provider,
		error: message,
	})
}
