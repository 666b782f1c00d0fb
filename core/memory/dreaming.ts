import { StageError } from '../errors.ts'
import type { DreamJob, JobAttempt, JobQueue } from '../jobs/queue.ts'
import { failureReason, rawMessage } from '../pipeline/failure-reason.ts'
import {
	type FormationDeps,
	formDocumentBatch,
	formDocumentMemories,
	MAX_FORMATION_DOCUMENTS,
} from './form-document.ts'

export interface DreamingDeps extends FormationDeps {
	queue: JobQueue
	/** A container's batch forms once no document of it has finished for this long. */
	quietSeconds: number
	/** ...but never later than this after its oldest pending document finished (a busy container still dreams). */
	maxWaitSeconds: number
}

/**
 * A dynamic document finished its pipeline: (re)arm its container's batch to run after the quiet interval, or
 * sooner when the oldest pending document has waited nearly the maximum.
 */
export async function armContainer(deps: DreamingDeps, job: DreamJob): Promise<void> {
	const age = await deps.storage.memories.pendingAgeSeconds(job.orgId, job.containerTag)
	const delay = age === null ? deps.quietSeconds : Math.min(deps.quietSeconds, Math.max(0, deps.maxWaitSeconds - age))
	await deps.queue.armDreaming(job, delay)
}

/** Re-arms every container with pending documents (after a restart, so no batch is lost). */
export async function rearmPending(deps: DreamingDeps, limit: number): Promise<number> {
	const containers = await deps.storage.memories.pendingContainers(limit)
	for (const container of containers) await armContainer(deps, container)
	return containers.length
}

/**
 * Forms the memories of every document of the container that is done but not yet dreamed, oldest first, up to 25
 * documents per transaction (so a failure keeps the batches formed before it). A document that still fails on the
 * job's last attempt is marked dreamed with a failed `memories` stage, so it does not hold the container back.
 */
export async function dreamContainer(job: DreamJob, deps: DreamingDeps, attempt: JobAttempt): Promise<void> {
	// Documents accepted before the batch fired but still in the pipeline belong to it: wait for them (up to the
	// maximum wait), so the container's memories form in the order its documents came.
	const [busy, age] = await Promise.all([
		deps.storage.memories.inPipeline(job.orgId, job.containerTag),
		deps.storage.memories.pendingAgeSeconds(job.orgId, job.containerTag),
	])
	if (busy > 0 && age !== null && age < deps.maxWaitSeconds) {
		await deps.queue.armDreaming(job, Math.max(1, Math.min(deps.quietSeconds, deps.maxWaitSeconds - age)))
		return
	}
	const tried = new Set<string>()
	for (;;) {
		const pending = (
			await deps.storage.memories.pendingDocuments(job.orgId, job.containerTag, MAX_FORMATION_DOCUMENTS)
		).filter((id) => !tried.has(id))
		if (pending.length === 0) return
		for (const id of pending) tried.add(id)
		const startedAt = new Date().toISOString()
		const options = { dreamingDone: true, stageStartedAt: startedAt }
		let failures: Map<string, unknown>
		try {
			failures = (await formDocumentBatch(pending, deps, options)).failures
		} catch (error) {
			// The batch's transaction failed: retry the job, or on its last attempt form document by document, so
			// one bad document does not hold back the others.
			if (!attempt.lastAttempt) throw error
			failures = new Map()
			for (const id of pending) {
				try {
					await formDocumentMemories(id, deps, options)
				} catch (single) {
					failures.set(id, single)
				}
			}
		}
		for (const [documentId, error] of failures) {
			// A failure retrying cannot help (over its budget, unreadable) ends the document's formation now.
			const retry = !attempt.lastAttempt && !(error instanceof StageError && error.permanent)
			deps.logger.warn('memory formation failed', { documentId, error: rawMessage(error), retry })
			if (retry) throw error
			const document = await deps.storage.documents.byId(documentId)
			if (document) {
				await deps.storage.memories.markDreamed(documentId, document.contentHash, {
					stage: 'memories',
					startedAt,
					endedAt: new Date().toISOString(),
					outcome: 'failed',
					error: failureReason('memories', error),
				})
			}
		}
	}
}
