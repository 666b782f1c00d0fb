import { PgBoss } from 'pg-boss'
import { fromPglite } from 'pg-boss/dist/adapters/pglite.js'
import type { Logger } from '../logger.ts'
import type { JobDatabase } from '../plugins/storage.ts'

export const DOCUMENT_QUEUE = 'document-process'

export interface DocumentJob {
	documentId: string
	orgId: string
}

export interface JobAttempt {
	/** True when pg-boss will not retry this job after a failure. */
	lastAttempt: boolean
}

export interface JobQueue {
	enqueueDocument(job: DocumentJob): Promise<void>
	/** Starts consuming document jobs; `handle` throws to ask for a retry. */
	workDocuments(concurrency: number, handle: (job: DocumentJob, attempt: JobAttempt) => Promise<void>): Promise<void>
	/** Marks jobs left active by a process that died as failed, so they are retried now. Embedded store only. */
	recoverOrphans(): Promise<number>
	stop(): Promise<void>
}

/**
 * The durable queue is pg-boss in the service's own database: on PostgreSQL through its own pool, on the embedded
 * store through its PGlite adapter. The `stately` policy keeps at most one queued and one active job per document,
 * so re-sends and recovery sweeps never pile up duplicates.
 */
export async function openJobQueue(
	database: JobDatabase,
	logger: Logger,
	options: { heartbeat: boolean },
): Promise<JobQueue> {
	const boss =
		database.kind === 'connection-string'
			? new PgBoss({
					connectionString: database.connectionString,
					schema: database.schema ?? 'pgboss',
					max: 4,
					// How soon a job whose worker died (heartbeat lapsed) is noticed and retried.
					monitorIntervalSeconds: 5,
					superviseIntervalSeconds: 5,
				})
			: new PgBoss({
					// biome-ignore lint/suspicious/noExplicitAny: the adapter takes the raw PGlite instance
					db: fromPglite(database.raw as any),
					backend: 'pglite',
					useListenNotify: true,
					superviseIntervalSeconds: 5,
				} as ConstructorParameters<typeof PgBoss>[0])
	boss.on('error', (error) => logger.warn('job queue error', { error: String(error) }))
	await boss.start()
	await boss.createQueue(DOCUMENT_QUEUE, {
		policy: 'stately',
		retryLimit: 3,
		retryDelay: 1,
		retryBackoff: true,
		expireInSeconds: 15 * 60,
		notify: true,
		// Several processes share one PostgreSQL: a job whose worker died is retried once its heartbeat lapses.
		...(options.heartbeat ? { heartbeatSeconds: 10 } : {}),
	})
	const workerIds: string[] = []

	return {
		async enqueueDocument(job) {
			await boss.send(DOCUMENT_QUEUE, job, { singletonKey: job.documentId })
		},
		async workDocuments(concurrency, handle) {
			// One fetch takes up to `concurrency` jobs and runs them together; a full batch fetches again at once
			// (burst), so a backlog drains without waiting out the polling interval between jobs.
			const id = await boss.work<DocumentJob>(
				DOCUMENT_QUEUE,
				{
					batchSize: concurrency,
					localConcurrency: 1,
					includeMetadata: true,
					perJobResults: true,
					burstWhenBatchFull: true,
					pollingIntervalSeconds: 0.5,
					notifyPollingIntervalSeconds: 2,
				},
				async (jobs) =>
					Promise.all(
						// includeMetadata adds the retry counters to each job.
						(jobs as unknown as { id: string; data: DocumentJob; retryCount: number; retryLimit: number }[]).map(
							async (job) => {
								try {
									await handle(job.data, { lastAttempt: job.retryCount >= job.retryLimit })
									return { id: job.id, status: 'completed' as const }
								} catch (error) {
									return { id: job.id, status: 'failed' as const, output: { error: String(error) } }
								}
							},
						),
					),
			)
			workerIds.push(id)
		},
		async recoverOrphans() {
			const active = (await boss.findJobs<DocumentJob>(DOCUMENT_QUEUE)).filter((job) => job.state === 'active')
			if (active.length > 0)
				await boss.fail(
					DOCUMENT_QUEUE,
					active.map((job) => job.id),
					{ error: 'worker stopped' },
				)
			return active.length
		},
		async stop() {
			await boss.stop({ graceful: true, timeout: 10_000 })
		},
	}
}
