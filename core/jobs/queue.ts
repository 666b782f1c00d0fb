import { PgBoss } from 'pg-boss'
import { fromPglite } from 'pg-boss/dist/adapters/pglite.js'
import type { Logger } from '../logger.ts'
import type { JobDatabase } from '../plugins/storage.ts'
import { inBackground } from './priority.ts'
import { Slots } from './slots.ts'

export const DOCUMENT_QUEUE = 'document-process'

const MAX_EXPIRY_SECONDS = 24 * 3600

export interface DocumentJob {
	documentId: string
	orgId: string
}

/** One container's memory-formation batch (dynamic dreaming). */
export const DREAM_QUEUE = 'memory-dream'

export interface DreamJob {
	orgId: string
	containerTag: string
}

/** Container maintenance: a merge of tags, or re-sorting memories into buckets after the definitions changed. */
export const CONTAINER_QUEUE = 'container-maintenance'

export type ContainerJob =
	| { kind: 'merge'; orgId: string; mergeId: string }
	/** containerTag null: every tag of the organization (its buckets changed). */
	| { kind: 'resort'; orgId: string; containerTag: string | null }

export interface JobAttempt {
	/** True when pg-boss will not retry this job after a failure. */
	lastAttempt: boolean
	/** The job only waits from now on (for another's work): its slot goes to the next job. Document jobs only. */
	waiting?: () => void
}

/** How a named queue retries and expires its jobs. */
export interface QueuePolicy {
	/** Retries after the first attempt. */
	retryLimit: number
	retryDelaySeconds: number
	/** Longest an attempt may run before it counts as failed. */
	expireInSeconds: number
	/** `stately`: at most one queued and one active job per singleton key. Default `standard`. */
	policy?: 'standard' | 'stately'
}

export interface SendOptions {
	/** With a stately queue: a key that already has a queued job adds none. */
	singletonKey?: string
	delaySeconds?: number
}

export interface JobQueue {
	/** Creates (or updates) a named queue; call before sending to it or working it. */
	define(name: string, policy: QueuePolicy): Promise<void>
	send<T extends object>(name: string, data: T, options?: SendOptions): Promise<void>
	/** Consumes a queue, `concurrency` jobs at once; `handle` throws to ask for a retry. */
	work<T extends object>(
		name: string,
		options: { concurrency: number },
		handle: (data: T, attempt: JobAttempt) => Promise<void>,
	): Promise<void>
	/** A recurring job: `cron` (five fields, UTC) sends `data` to the queue; `key` names it among the queue's schedules. */
	schedule<T extends object>(name: string, key: string, cron: string, data: T): Promise<void>
	unschedule(name: string, key: string): Promise<void>
	/** The keys and cron lines of the queue's recurring jobs. */
	scheduled(name: string): Promise<{ key: string; cron: string }[]>
	enqueueDocument(job: DocumentJob): Promise<void>
	/** Starts consuming document jobs; `handle` throws to ask for a retry. */
	workDocuments(concurrency: number, handle: (job: DocumentJob, attempt: JobAttempt) => Promise<void>): Promise<void>
	/**
	 * Arms the container's dreaming batch to run `delaySeconds` from now. Re-arming a batch that has not started
	 * moves it later (a debounce: it runs once the container has been quiet); a running batch gets one successor.
	 */
	armDreaming(job: DreamJob, delaySeconds: number): Promise<void>
	/** Consumes dreaming batches, up to `concurrency` containers at once (one batch per container at a time). */
	workDreaming(concurrency: number, handle: (job: DreamJob, attempt: JobAttempt) => Promise<void>): Promise<void>
	enqueueContainerJob(job: ContainerJob): Promise<void>
	workContainerJobs(handle: (job: ContainerJob) => Promise<void>): Promise<void>
	/** Marks jobs left active by a process that died as failed, so they are retried now. Embedded store only. */
	recoverOrphans(): Promise<number>
	stop(): Promise<void>
}

/**
 * A fetch skips the singleton keys the queue's statistics last saw active: pg-boss's monitor writes them to its queue
 * table, and each process caches that table, by default for 60 s. A key whose job has ended stays blocked until both
 * have caught up, so on PostgreSQL both are kept to seconds (where the supervisor also notices a job whose worker died
 * within seconds). The embedded store keeps pg-boss's 60 s for both: its monitor scans the whole job table on the one
 * connection searches use (67 ms at 10,000 jobs, 330 ms at 100,000), and a cache fresher than the monitor only serves
 * its stale keys sooner. What matters there is the restart: see `clearStaleSingletons`.
 */
const POSTGRES_STATISTICS = { monitorIntervalSeconds: 5, superviseIntervalSeconds: 5, queueCacheIntervalSeconds: 5 }

/**
 * The embedded store belongs to this process alone (a pid lock guards it), so before pg-boss starts no job is
 * active, whatever the statistics a killed process left say; left in place, they would hold back the resumed work of
 * its keys until the monitor and the cache next run, up to two minutes.
 */
async function clearStaleSingletons(database: Extract<JobDatabase, { kind: 'executor' }>): Promise<void> {
	const { rows } = await database.executeSql("SELECT to_regclass('pgboss.queue') IS NOT NULL AS present")
	if ((rows[0] as { present: boolean } | undefined)?.present)
		await database.executeSql('UPDATE pgboss.queue SET singletons_active = NULL WHERE singletons_active IS NOT NULL')
}

/**
 * The durable queue is pg-boss in the service's own database: on PostgreSQL through its own pool, on the embedded
 * store through its PGlite adapter. The `stately` policy keeps at most one queued and one active job per document,
 * so re-sends and recovery sweeps never pile up duplicates.
 */
export async function openJobQueue(
	database: JobDatabase,
	logger: Logger,
	options: {
		heartbeat: boolean
		/** The longest a document's attempt may run (its time budget): a job is never expired while it may still run. */
		documentBudgetSeconds?: number
	},
): Promise<JobQueue> {
	const boss =
		database.kind === 'connection-string'
			? new PgBoss({
					connectionString: database.connectionString,
					schema: database.schema ?? 'pgboss',
					max: 4,
					...POSTGRES_STATISTICS,
				})
			: new PgBoss({
					// biome-ignore lint/suspicious/noExplicitAny: the adapter takes the raw PGlite instance
					db: fromPglite(database.raw as any),
					backend: 'pglite',
					useListenNotify: true,
					superviseIntervalSeconds: 5,
				} as ConstructorParameters<typeof PgBoss>[0])
	boss.on('error', (error) => logger.warn('job queue error', { error: String(error) }))
	if (database.kind === 'executor') await clearStaleSingletons(database)
	await boss.start()
	// Several processes share one PostgreSQL: a job whose worker died is retried once its heartbeat lapses.
	const retried = {
		retryLimit: 3,
		retryBackoff: true,
		notify: true,
		...(options.heartbeat ? { heartbeatSeconds: 10 } : {}),
	}
	const define = async (name: string, policy: QueuePolicy) => {
		const options = {
			...retried,
			retryLimit: policy.retryLimit,
			retryDelay: policy.retryDelaySeconds,
			expireInSeconds: policy.expireInSeconds,
			policy: policy.policy ?? 'standard',
		}
		// A queue's policy is fixed when it is created; its retry and expiry settings may change.
		const { policy: _fixed, ...changeable } = options
		if (await boss.getQueue(name)) await boss.updateQueue(name, changeable)
		else await boss.createQueue(name, options)
	}
	// An expired job is handed to another worker while the first may still be on it: expiry stays well past the
	// budget (a dreaming batch extracts up to 25 documents, each within its budget).
	const budget = options.documentBudgetSeconds ?? 0
	// pg-boss refuses an expiry over 24 hours.
	const expiry = (seconds: number) => Math.min(MAX_EXPIRY_SECONDS, seconds)
	await define(DOCUMENT_QUEUE, {
		retryLimit: 3,
		retryDelaySeconds: 1,
		expireInSeconds: expiry(Math.max(15 * 60, 2 * budget + 60)),
		policy: 'stately',
	})
	await define(DREAM_QUEUE, {
		retryLimit: 3,
		retryDelaySeconds: 2,
		expireInSeconds: expiry(Math.max(30 * 60, 25 * budget + 60)),
		policy: 'stately',
	})
	await define(CONTAINER_QUEUE, { retryLimit: 3, retryDelaySeconds: 2, expireInSeconds: 30 * 60 })
	const workerIds: string[] = []
	const work: JobQueue['work'] = async (name, options, handle) => {
		const id = await boss.work(
			name,
			{
				batchSize: 1,
				localConcurrency: options.concurrency,
				includeMetadata: true,
				pollingIntervalSeconds: 0.5,
				notifyPollingIntervalSeconds: 2,
			},
			async ([job]) => {
				if (!job) return
				const { data, retryCount, retryLimit } = job as unknown as {
					data: Parameters<typeof handle>[0]
					retryCount: number
					retryLimit: number
				}
				await inBackground(() => handle(data, { lastAttempt: retryCount >= retryLimit }))
			},
		)
		workerIds.push(id)
	}

	return {
		define,
		async send(name, data, options = {}) {
			await boss.send(name, data, {
				...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
				...(options.delaySeconds ? { startAfter: Math.ceil(options.delaySeconds) } : {}),
			})
		},
		work,
		async schedule(name, key, cron, data) {
			await boss.schedule(name, cron, data, { key, tz: 'UTC' })
		},
		async unschedule(name, key) {
			await boss.unschedule(name, key)
		},
		async scheduled(name) {
			return (await boss.getSchedules(name)).map((schedule) => ({ key: schedule.key, cron: schedule.cron }))
		},
		async enqueueDocument(job) {
			await boss.send(DOCUMENT_QUEUE, job, { singletonKey: job.documentId })
		},
		async workDocuments(concurrency, handle) {
			// One fetch takes up to `concurrency` jobs and runs them together; a full batch fetches again at once
			// (burst), so a backlog drains without waiting out the polling interval between jobs. On PostgreSQL two
			// fetches' worth of documents are in their stages at once, and four fetch loops keep twice that many in
			// hand: a document waiting for its memories (formed one container at a time) gives its slot to another, so
			// one container's backlog neither idles the processor nor shrinks its formations' batches. The embedded
			// database works on the event loop itself, where more documents at once only queue more work in front of
			// requests: one loop, and a slot for every document it holds.
			const server = database.kind === 'connection-string'
			const slots = new Slots(server ? 2 * concurrency : concurrency)
			const id = await boss.work<DocumentJob>(
				DOCUMENT_QUEUE,
				{
					batchSize: concurrency,
					localConcurrency: server ? 4 : 1,
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
								const release = await slots.take()
								try {
									await inBackground(() =>
										handle(job.data, { lastAttempt: job.retryCount >= job.retryLimit, waiting: release }),
									)
									return { id: job.id, status: 'completed' as const }
								} catch (error) {
									return { id: job.id, status: 'failed' as const, output: { error: String(error) } }
								} finally {
									release()
								}
							},
						),
					),
			)
			workerIds.push(id)
		},
		async armDreaming(job, delaySeconds) {
			// upsert moves the queued batch of the key (created or retry state) or queues a new one; the stately
			// policy allows one queued next to a running one, so documents done meanwhile get their own run.
			await boss.upsert(DREAM_QUEUE, job, {
				singletonKey: `${job.orgId}:${job.containerTag}`,
				startAfter: Math.max(0, Math.ceil(delaySeconds)),
			})
		},
		workDreaming: (concurrency, handle) => work<DreamJob>(DREAM_QUEUE, { concurrency }, handle),
		async enqueueContainerJob(job) {
			// A repeated re-sort is harmless (it reads the definitions when it runs and rewrites only what changed).
			await boss.send(CONTAINER_QUEUE, job)
		},
		workContainerJobs: (handle) => work<ContainerJob>(CONTAINER_QUEUE, { concurrency: 1 }, (job) => handle(job)),
		async recoverOrphans() {
			let recovered = 0
			// Every queue of the store, also those this process has not defined yet (a connector's sync queue).
			for (const queue of (await boss.getQueues()).map((q) => q.name)) {
				const active = (await boss.findJobs(queue)).filter((job) => job.state === 'active')
				if (active.length > 0)
					await boss.fail(
						queue,
						active.map((job) => job.id),
						{ error: 'worker stopped' },
					)
				recovered += active.length
			}
			return recovered
		},
		async stop() {
			await boss.stop({ graceful: true, timeout: 10_000 })
		},
	}
}
