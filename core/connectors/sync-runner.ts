import type { ServiceError } from '../errors.ts'
import type { JobAttempt } from '../jobs/queue.ts'
import type { ConnectionRecord, SyncCounts, SyncErrorCode } from '../plugins/connection-storage.ts'
import type { AnyConnector, SyncContext } from '../plugins/connector.ts'
import { applyDelete } from './apply-event.ts'
import { syncContext } from './context.ts'
import type { ConnectorDeps, SyncJob } from './deps.ts'
import { InsufficientScopeError, RateLimitedError, statusOf } from './errors.ts'
import { type FailedItems, failedItemsOf, retryOf } from './failed-items.ts'
import { type FailurePolicy, failurePolicy } from './failure-policy.ts'
import { enqueueSync, expire, isRevoked } from './lifecycle.ts'
import { type ListingDoubts, reconcile } from './reconcile.ts'
import { leaseRetrySeconds, takeLease } from './sync-lease.ts'
import { upsertBatch } from './upsert-batch.ts'

const refusal = (error: ServiceError) => (error.details ? `${error.message}: ${error.details}` : error.message)
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

function errorCodeOf(error: unknown): SyncErrorCode {
	if (error instanceof RateLimitedError) return 'rate_limited'
	const status = statusOf(error)
	if (status === 429) return 'rate_limited'
	if (status !== undefined && status >= 500) return 'provider_unavailable'
	return 'internal'
}

/**
 * One sync of one connection, under its lease (one run per connection at a time, across processes and queue
 * retries). A run that cannot take the lease comes back when it would lapse.
 */
export async function runSync(deps: ConnectorDeps, job: SyncJob, attempt: JobAttempt): Promise<void> {
	const connection = await deps.storage.connections.byId(job.connectionId)
	if (connection?.status !== 'active') return
	const connector = deps.connectors.get(connection.provider)
	if (!connector) {
		deps.logger.warn('no connector serves this connection', {
			connectionId: connection.id,
			provider: connection.provider,
		})
		return
	}
	const policy = failurePolicy(deps)
	const lease = await takeLease(deps, connection.id, policy.leaseSeconds)
	if (!lease) {
		await enqueueSync(deps, connection.id, job.trigger, leaseRetrySeconds(policy.leaseSeconds))
		return
	}
	const stop = new AbortController()
	const budget = setTimeout(() => stop.abort(new Error('the run reached its time budget')), policy.runSeconds * 1000)
	const onStopping = () => stop.abort(deps.stopping?.reason)
	deps.stopping?.addEventListener('abort', onStopping, { once: true })
	try {
		await runLeased(deps, connector, connection, job, attempt, policy, { signal: stop.signal, lost: lease.lost })
	} finally {
		clearTimeout(budget)
		deps.stopping?.removeEventListener('abort', onStopping)
		await lease.release()
	}
}

interface RunControl {
	signal: AbortSignal
	/** Another run took the lease over (this one's heartbeat lapsed). */
	lost: () => boolean
}

/**
 * From the connection's last committed cursor, events applied in order (upserts a few at a time), the cursor stored
 * at each checkpoint once everything before it is. Failed items of earlier runs are read again first (or, for a
 * connector that cannot read one item, the run lists everything again). A process that dies mid-run leaves the run
 * `running`; the next run marks it interrupted and resumes from the last checkpoint, and items already imported are
 * updated in place (their customId), never duplicated.
 */
async function runLeased(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	job: SyncJob,
	attempt: JobAttempt,
	policy: FailurePolicy,
	control: RunControl,
): Promise<void> {
	const { storage, logger } = deps
	await storage.connections.interruptRuns(connection.id)
	const run = await storage.connections.startRun(connection.id, job.trigger)
	const counts: SyncCounts = { added: 0, updated: 0, deleted: 0, skipped: 0, failed: 0 }
	const notes: string[] = []
	const failed = await failedItemsOf(deps, connection.id, run.id, policy)
	const ctx = syncContext(deps, connector, connection, control.signal)
	ctx.trigger = job.trigger
	const doubts: ListingDoubts = { failedScopes: new Map(), unnamedFailures: 0 }
	const seen = new Set<string>()
	let limitReached = false
	const upserts = upsertBatch(
		deps,
		connection,
		counts,
		async (externalId, error) => {
			counts.failed++
			await failed.failed(externalId, refusal(error), 'permanent')
		},
		(externalId) => failed.settled(externalId),
	)
	const stopped = () => control.signal.aborted || control.lost()
	try {
		let cursor = connection.cursor
		const due = failed.due()
		if (due.length > 0 && connector.readItem) {
			limitReached = !(await retryItems(deps, connector, connection, ctx, due, failed, upserts, counts))
		} else if (due.length > 0) {
			cursor = null
			notes.push(`${due.length} failed item(s) due for another attempt: the provider was listed again in full`)
		}
		if (!limitReached) {
			for await (const event of connector.sync(ctx, cursor)) {
				// A stopped run applies what was read up to the next checkpoint, and trusts no listing any more.
				if (control.lost()) break
				if (control.signal.aborted && event.type === 'present') continue
				if (event.type === 'upsert') {
					seen.add(event.document.externalId)
					limitReached = !(await upserts.add(event.document))
				} else if (event.type === 'delete' || event.type === 'present' || event.type === 'checkpoint') {
					limitReached = !(await upserts.flush())
				}
				if (limitReached) break
				switch (event.type) {
					case 'unchanged':
						seen.add(event.externalId)
						counts.skipped++
						await failed.settled(event.externalId)
						break
					case 'delete':
						seen.add(event.externalId)
						await applyDelete(deps, connection, event.externalId, counts)
						await failed.settled(event.externalId)
						break
					case 'failure':
						counts.failed++
						if (event.externalId === null) {
							doubts.unnamedFailures++
							await storage.connections.addFailure(run.id, null, event.error)
						} else {
							seen.add(event.externalId)
							await failed.failed(event.externalId, event.error, event.retry)
						}
						break
					case 'scope-failed':
						doubts.failedScopes.set(event.scope, event.error)
						await storage.connections.addFailure(run.id, null, `${event.scope}: ${event.error}`)
						break
					case 'present': {
						const note = await reconcile(deps, connection, event, doubts, policy, counts)
						if (note) notes.push(note)
						if (event.complete === true) {
							// A failed item a complete listing no longer has is gone: nothing to read again.
							const listed = new Set(event.externalIds)
							for (const id of failed.under(event.prefix)) if (!listed.has(id)) await failed.settled(id)
						}
						break
					}
					case 'checkpoint':
						await storage.connections.update(connection.id, { cursor: event.cursor })
						await storage.connections.updateRun(run.id, { counts, notes })
						break
				}
				if (event.type === 'checkpoint' && control.signal.aborted) break
			}
		}
		if (!limitReached) limitReached = !(await upserts.flush())
		if (stopped() && !limitReached) {
			await handOver(deps, connection, job, run.id, counts, notes, control)
			return
		}
		if (!connector.readItem && due.length > 0 && cursor === null && !limitReached) {
			// The full listing did not name them: the provider no longer has them.
			for (const item of due) if (!seen.has(item.externalId)) await failed.settled(item.externalId)
		}
		await storage.connections.updateRun(run.id, {
			status: limitReached ? 'limit_reached' : 'completed',
			...(limitReached
				? { error: `documentLimit (${connection.documentLimit}) reached: the sync stopped before importing more` }
				: {}),
			counts,
			notes,
			finished: true,
		})
		await storage.connections.update(connection.id, { error: null })
	} catch (error) {
		// What the connector read before it failed is still applied (a retry finds it imported).
		await upserts.flush().catch((cause) => logger.warn('could not apply held upserts', { cause: String(cause) }))
		if (stopped()) {
			await handOver(deps, connection, job, run.id, counts, notes, control)
			return
		}
		if (error instanceof RateLimitedError) {
			await rateLimited(deps, connection, job, run.id, counts, notes, error)
			return
		}
		await failRun(deps, connection, run.id, counts, notes, error)
		// A provider outage is retried by the queue (from the last checkpoint); a refused grant is not.
		if (!isRevoked(error) && !(error instanceof InsufficientScopeError) && !attempt.lastAttempt) throw error
	}
}

/** Failed items due for another attempt, read one by one; false when the documentLimit stopped them. */
async function retryItems(
	deps: ConnectorDeps,
	connector: AnyConnector,
	connection: ConnectionRecord,
	ctx: SyncContext,
	due: { externalId: string }[],
	failed: FailedItems,
	upserts: ReturnType<typeof upsertBatch>,
	counts: SyncCounts,
): Promise<boolean> {
	for (const { externalId } of due) {
		if (ctx.signal.aborted) break
		let read: Awaited<ReturnType<NonNullable<AnyConnector['readItem']>>>
		try {
			read = await connector.readItem!(ctx, externalId)
		} catch (error) {
			if (isRevoked(error) || error instanceof RateLimitedError || error instanceof InsufficientScopeError) throw error
			counts.failed++
			await failed.failed(externalId, messageOf(error), retryOf(error))
			continue
		}
		if (read === 'gone') {
			await applyDelete(deps, connection, externalId, counts)
			await failed.settled(externalId)
		} else if (read === 'unchanged') {
			counts.skipped++
			await failed.settled(externalId)
		} else if (!(await upserts.add(read))) return false
	}
	return upserts.flush()
}

/** The run stopped (its time budget, the service stopping, a lost lease): the next run resumes from the checkpoint. */
async function handOver(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	job: SyncJob,
	runId: string,
	counts: SyncCounts,
	notes: string[],
	control: RunControl,
): Promise<void> {
	await deps.storage.connections.updateRun(runId, {
		status: 'interrupted',
		error: `${messageOf(control.signal.reason ?? 'another run took over')}: the next run resumes from the last checkpoint`,
		counts,
		notes,
		finished: true,
	})
	if (!control.lost()) await enqueueSync(deps, connection.id, job.trigger)
}

/** A rate limit longer than a run waits: the run ends, and the next one starts when the limit resets. */
async function rateLimited(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	job: SyncJob,
	runId: string,
	counts: SyncCounts,
	notes: string[],
	error: RateLimitedError,
): Promise<void> {
	const delaySeconds = Math.max(1, Math.ceil((error.resetAt.getTime() - Date.now()) / 1000))
	await deps.storage.connections.updateRun(runId, {
		status: 'failed',
		errorCode: 'rate_limited',
		error: `${error.message}; the sync resumes from its last checkpoint then`,
		retryAt: error.resetAt.toISOString(),
		counts,
		notes,
		finished: true,
	})
	await enqueueSync(deps, connection.id, job.trigger, delaySeconds)
	deps.logger.info('connector sync waits out a rate limit', {
		connectionId: connection.id,
		provider: connection.provider,
		retryAt: error.resetAt.toISOString(),
	})
}

async function failRun(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	runId: string,
	counts: SyncCounts,
	notes: string[],
	error: unknown,
): Promise<void> {
	const message = messageOf(error)
	const revoked = isRevoked(error)
	const missingScope = error instanceof InsufficientScopeError
	// The connection first: whoever sees the run finished sees the connection as it will stay.
	if (revoked) await expire(deps, connection, message)
	if (missingScope) await expire(deps, connection, message, 'permission missing')
	await deps.storage.connections.updateRun(runId, {
		status: 'failed',
		error: message,
		errorCode: revoked || missingScope ? 'auth_expired' : errorCodeOf(error),
		counts,
		notes,
		finished: true,
	})
	deps.logger.warn('connector sync failed', {
		connectionId: connection.id,
		provider: connection.provider,
		error: message,
	})
}
